#pragma once
// Pipeline files (TOML, read with toml++). See docs/pipeline-format.md.
//
//   name = "two-class logistic RBF"
//   seed = 1
//   threads = 0                # 0: all cores
//   [data]       train, test (paths relative to the pipeline file), target, standardize, task
//   [basis]      plugin = "thin-plate", ...parameters
//   [centres]    plugin = "kmeans", count = 8, ...
//   [output]     plugin = "irls", ...
//   [weight-penalty] plugin = "weight-decay", alpha = 0.001     (optional)
//   [kernel-prior]   plugin = "bhattacharyya", alpha = 10        (optional)
//   (the old name of both prior tables is still read: radial/pipeline/legacy_prior_table.hpp)
//   [evaluate]   folds = 10, committee = 10                      (optional)
//   [search]     folds = 10, metric = "error_rate", "centres.count" = [1, 2, 3]   (optional)
//
// Every error is a PipelineError "file:line:column: message"; unknown keys and plugin ids get
// "did you mean"; parameter types and ranges are checked against each plugin's ParamTable
// before any data is read. Overrides "slot.key=value" (from --set) are applied first, as if
// written in the file.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/pipeline/legacy_prior_table.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/core/params.hpp"
#include "radial/plugin/loader.hpp"

namespace radial {

struct SourcePosition {
  std::string file;
  std::size_t line = 0, column = 0;
  std::string str() const;  // "file:line:column"
};

struct ComponentSpec {
  std::string plugin;
  Params params;              // validated against the plugin's table, defaults filled
  SourcePosition where;       // of the table header, for later messages
  std::string table;          // the table it was written in (kLegacyPriorTable for an old one)
};

struct DataSpec {
  std::filesystem::path train;               // absolute
  std::optional<std::filesystem::path> test;  // absolute
  std::string target;                        // empty: last column
  bool standardize = true;
  std::optional<Task> task;                  // "classification" | "regression"
  std::optional<std::size_t> features;       // LIBSVM files: d (indices 1..d)
  std::vector<std::string> nominal;          // input columns coded 1-of-C from their first row
  bool unseen_as_zero = false;               // unseen = "zeros" (else "error")
  // nominal_scale = "input" | "category": one scale per nominal input, or per category (the
  // coding before issue 47); radial/core/input_coding.hpp says why.
  NominalScale nominal_scale = NominalScale::Input;
  MissingPolicy missing = MissingPolicy::Error;  // missing = "error" | "drop-rows" | ...
};

struct EvaluateSpec {
  std::size_t folds = 0;      // k-fold cross-validation (0: none)
  std::size_t committee = 0;  // committee members differing by seed (0 or 1: none)
  bool stratified = true;
  // Folds given by the user, for comparisons on another tool's exact splits (one of the two):
  // a column of the training data holding each row's fold (taken out of the inputs), or a file
  // with one fold per training row. [evaluate] and [search] then both use them; `folds` is the
  // number of distinct values (0 until the data is read).
  std::string fold_column;
  std::optional<std::filesystem::path> fold_file;  // absolute
  bool user_folds() const { return !fold_column.empty() || fold_file.has_value(); }
};

struct Pipeline;

// One swept setting of [search]: "slot.key" = [values...], positions of the values for messages.
struct SearchAxis {
  std::string key;                     // "centres.count"
  std::vector<ParamValue> values;      // as written (before coercion to the parameter's type)
  std::vector<SourcePosition> where;   // of each value
};

// The value index on each axis of grid point `index` of a grid whose axes hold `sizes` values,
// the first axis varying slowest: candidate `index` of a SearchSpec takes
// axes[a].values[grid_point(sizes, index)[a]].
std::vector<std::size_t> grid_point(const std::vector<std::size_t>& sizes, std::size_t index);

// [search]: model selection by k-fold cross-validation on the training rows (docs/pipeline-
// format.md). The candidates are the cartesian product of the axes, the first axis varying
// slowest (file order); each is a complete pipeline, validated, without a [search] of its own.
struct SearchSpec {
  std::size_t folds = 10;
  bool folds_given = false;   // folds written in [search]: user folds must agree with it
  std::string metric;         // "error_rate", "cross_entropy" or "mse"; empty: error_rate for
                              // classification, mse for regression
  bool stratified = true;
  std::vector<SearchAxis> axes;
  std::vector<Pipeline> candidates;
  SourcePosition where;       // of the [search] header
};

struct Pipeline {
  std::filesystem::path file;
  std::string text;           // the file as read, with overrides noted at its end
  // Every setting after overrides and data replacement, as canonical TOML without [data]
  // (comments and layout dropped): what the experiment results store hashes.
  std::string settings;
  std::string name;
  std::uint64_t seed = 1;
  int threads = 0;            // 0: all cores
  DataSpec data;
  ComponentSpec basis, centres, output;
  std::optional<ComponentSpec> weight_penalty;  // prior on the output weights
  std::optional<ComponentSpec> kernel_prior;    // prior on the kernels (class-aware learners)
  std::optional<ComponentSpec> refine;          // whole-network training after the two stages

  // The component of `slot`, or null for an optional slot the pipeline leaves out: the
  // components by slot, for code that treats every slot alike (walking all_slots).
  const ComponentSpec* component(Slot slot) const;
  ComponentSpec* component(Slot slot);
  // Sets (or, empty, removes) the component of `slot`; a required slot (slot_required) must be
  // given one.
  void set_component(Slot slot, std::optional<ComponentSpec> spec);

  // The prior written in the old table kLegacyPriorTable (weight_penalty or kernel_prior), or
  // null.
  const ComponentSpec* legacy_prior() const {
    if (weight_penalty && weight_penalty->table == kLegacyPriorTable) return &*weight_penalty;
    if (kernel_prior && kernel_prior->table == kLegacyPriorTable) return &*kernel_prior;
    return nullptr;
  }
  EvaluateSpec evaluate;
  std::optional<SearchSpec> search;
  // What the file says in a form that is still read but should be rewritten (a prior in the old
  // table: guard "deprecated-table"), with the new form as the setting; train() reports them.
  std::vector<Warning> warnings;
};

// Data named by someone else than the pipeline file (an experiment's dataset): replaces
// [data] train and test; target and task replace the file's when given; the file's other
// [data] keys (standardize) stay. The file then need not have a [data] table.
struct DataReplacement {
  std::filesystem::path train;                 // absolute; empty: the data come in memory
                                               // (Pipeline::data.train stays empty)
  std::optional<std::filesystem::path> test;   // absolute
  std::optional<std::string> target;
  std::optional<Task> task;
  std::string label;                           // position for messages, e.g. "exp.toml:12:1"
};

// The largest pipeline file read_pipeline accepts (1 MB); larger ones are a PipelineError.
constexpr std::size_t max_pipeline_bytes = std::size_t(1) << 20;

// Reads the file through InputFile (a folder, socket or unreadable file is a PipelineError
// naming it; pipes and FIFOs are read as streams), then parses
// `overrides` ("slot.key=value"; value parsed as TOML: 12, 0.5, true, "text" or a bare
// word taken as a string) and the file, validates everything against `registry`.
Pipeline read_pipeline(const std::filesystem::path& file, const Registry& registry,
                       const std::vector<std::string>& overrides = {});

// The same from text (tests); `file` is used for messages and relative paths.
Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides = {});

// read_pipeline / parse_pipeline with [data] replaced (see DataReplacement).
Pipeline read_pipeline(const std::filesystem::path& file, const Registry& registry,
                       const std::vector<std::string>& overrides, const DataReplacement& data);
Pipeline parse_pipeline(const std::string& text, const std::filesystem::path& file,
                        const Registry& registry, const std::vector<std::string>& overrides,
                        const DataReplacement& data);

}  // namespace radial
