#pragma once
// The pipeline reader of radial/pipeline/pipeline.hpp (internal): TOML checked against the
// registry's parameter tables, every error positioned at the offending key or value. Its
// methods are in pipeline.cpp, those of the [search] grid in pipeline_search.cpp.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "toml_place.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"

namespace radial::pipeline {

// A TOML integer, real, boolean or string as a parameter value; none for anything else.
std::optional<ParamValue> param_value(const toml::node& node);

class PipelineReader : TomlSource {
 public:
  PipelineReader(const std::filesystem::path& file, const Registry& registry)
      : TomlSource(file), registry_(registry) {}

  Pipeline read(const std::string& text, const std::vector<std::string>& overrides,
                const DataReplacement* replacement);

 private:
  // Positions of things an override set are the override itself.
  std::string key_at(const std::string& path, const toml::key& key) const {
    const auto label = labels_.find(path);
    return label != labels_.end() ? label->second : at(key.source());
  }
  std::string node_at(const std::string& path, const toml::node& node) const {
    const auto label = labels_.find(path);
    return label != labels_.end() ? label->second : at(node.source());
  }
  SourcePosition position(const std::string& path, const toml::node& node) const;

  // An integer >= low (and <= high): seed, threads, folds, committee.
  std::int64_t count(const toml::node& node, const std::string& path, const std::string& name,
                     std::int64_t low, std::int64_t high = INT64_MAX) const;

  bool boolean(const toml::node& node, const std::string& path, const std::string& name) const;

  const std::string& string(const toml::node& node, const std::string& path,
                            const std::string& name) const;

  // A required table [name], or nullptr when absent and optional.
  const toml::table* section(const toml::table& root, const std::string& name, bool required,
                           const std::string& hint) const;

  void unknown_keys(const toml::table& table, const std::string& name,
                    const std::vector<std::string>& allowed) const;

  std::filesystem::path resolve(const std::string& text) const {
    const std::filesystem::path path(text);
    return (path.is_absolute() ? path : folder_ / path).lexically_normal();
  }

  // A data file named by [data] `key`; one that does not exist is reported at the key.
  std::filesystem::path data_file(const toml::table& table, const std::string& key) const;

  DataSpec data(const toml::table& root) const;

  // The prior tables: [weight-penalty], [kernel-prior], and the old table of both
  // (kLegacyPriorTable), still read: its prior goes where its plugin's slot says, with a
  // "deprecated-table" warning naming that slot's table.
  void priors(const toml::table& root, Pipeline& pipeline) const;

  std::optional<ComponentSpec> component(const toml::table& root, Slot slot, bool required,
                                         const std::string& table_name = "") const;

  EvaluateSpec evaluate(const toml::table& root) const;

  // Every setting but [data] as canonical TOML.
  static std::string settings(const toml::table& root);

  // One "slot.key" = [values] of [search], before its values are tried in the candidates.
  struct Axis {
    std::string slot, param;
    SearchAxis spec;
    std::size_t line = 0, column = 0;  // of the array: axes run in file order
  };

  // The [search] grid (pipeline_search.cpp).
  Axis search_axis(const std::string& slot, const std::string& param, const toml::key& key,
                   const toml::node& node, const Pipeline& parent) const;
  // [search]: its settings, its axes in file order, and every candidate of the grid validated
  // as a complete pipeline (messages point at the value tried).
  SearchSpec search(const toml::table& root, const Pipeline& parent);
  // The settings of [search] into `spec`, and its axes in file order.
  std::vector<Axis> search_keys(const toml::table& table, const Pipeline& parent,
                                SearchSpec& spec) const;
  // The number of candidates; each key swept once, and not too many candidates.
  std::size_t grid_size(const std::vector<Axis>& axes, const SearchSpec& spec) const;
  // A parameter the slot's plugin does not take is reported at its key (unless the plugin
  // itself is swept: then each candidate's plugin decides).
  void check_swept_params(const toml::table& table, const std::vector<Axis>& axes,
                          const Pipeline& parent) const;
  // Candidate `index` of the grid: `base` (the file without [search]) with its values, read
  // again slot by slot; labels_ then name the values tried.
  Pipeline search_candidate(const toml::table& base, const Pipeline& parent,
                            const std::vector<Axis>& axes, std::size_t index);
  // The slot `name` of a candidate read again when an axis sweeps it (`digit`: the value of
  // each axis); a problem is reported at the value that makes it.
  void read_swept_slot(const std::string& name, const toml::table& candidate_root,
                       Pipeline& candidate, const std::vector<Axis>& axes,
                       const std::vector<std::size_t>& digit, const std::string& note) const;
  // The position of an axis's key in [search] (quoted "slot.key" or dotted slot.key).
  std::string axis_key_at(const toml::table& search, const Axis& axis) const;

  // [data] train/test (and target/task when given) from `r`; messages about them point at its label.
  void replace_data(toml::table& root, const DataReplacement& r);

  bool data_in_memory_ = false;  // DataReplacement with an empty train
  const Registry& registry_;
  std::map<std::string, std::string> labels_;
};

}  // namespace radial::pipeline
