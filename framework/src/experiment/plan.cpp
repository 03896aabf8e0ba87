// plan_runs and PlannedRun::record of radial/experiment/experiment.hpp: every run in a fixed order,
// with the key the results store knows it by. The key is SHA-1 (Boost.Uuid's) over length-prefixed
// fields: what determines the run's result (pipeline settings after overrides, data file
// contents, split, target, task, standardize, seed, plugin versions) and its identity
// (experiment, dataset, pipeline, grid values), so two entries never share a key.

#include "radial/experiment/experiment.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <boost/uuid/detail/sha1.hpp>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "experiment_internal.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/pipeline/legacy_prior_table.hpp"

namespace radial {

namespace {

namespace fs = std::filesystem;

// Changes whenever what a run's result depends on changes (new fields, another split).
constexpr const char* kKeyFormat = "radial experiment run key 1";

class Sha1 {
 public:
  void bytes(const void* data, std::size_t size) { hash_.process_bytes(data, size); }
  // Length first, so ("ab", "c") and ("a", "bc") differ.
  void field(const std::string& text) {
    unsigned char size[8];
    std::uint64_t n = text.size();
    for (int i = 0; i < 8; ++i) size[i] = static_cast<unsigned char>(n >> (8 * i));
    bytes(size, sizeof size);
    bytes(text.data(), text.size());
  }
  std::string hex() {
    boost::uuids::detail::sha1::digest_type digest;
    hash_.get_digest(digest);
    std::string out;
    char word[9];
    for (unsigned int part : digest) {
      std::snprintf(word, sizeof word, "%08x", part);
      out += word;
    }
    return out;
  }

 private:
  boost::uuids::detail::sha1 hash_;
};

// SHA-1 of a data file's bytes: the key follows the contents, not the name or the date.
std::string file_digest(const fs::path& file) {
  // A run is known by its data's contents, so they must have an end and stay put: a device or
  // a pipe would be hashed forever or consumed before the run reads it (and opening a FIFO
  // waits for a writer, so this is asked before the file is opened).
  std::error_code error;
  const fs::file_status status = fs::status(file, error);
  const bool special =
      fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status);
  std::optional<InputFile> in;
  if (!special) in.emplace(InputFile::open<DataError>(file, "data file"));
  if (special || !in->regular()) {
    throw DataError(file.string() +
                    ": is not a regular file (a device, pipe or FIFO); an experiment hashes its "
                    "data files to know when they change, so give a regular file (radial train "
                    "reads streams)");
  }
  Sha1 hash;
  std::vector<char> buffer(std::size_t(1) << 20);
  while (const std::size_t got = in->read_some<DataError>(buffer.data(), buffer.size())) {
    hash.bytes(buffer.data(), got);
  }
  return hash.hex();
}

// A grid value (TOML text) as JSON: numbers, booleans and strings as themselves.
nlohmann::json json_value(const std::string& text) {
  try {
    const toml::table parsed = toml::parse("v = " + text);
    const toml::node& v = *parsed.get("v");
    if (const auto* x = v.as_integer()) return x->get();
    if (const auto* x = v.as_boolean()) return x->get();
    if (const auto* x = v.as_string()) return x->get();
    if (const auto* x = v.as_floating_point()) {
      if (std::isfinite(x->get())) return x->get();
    }
  } catch (const toml::parse_error&) {
  }
  return text;  // inf, nan: JSON has no such numbers
}

std::string task_name(const std::optional<Task>& task) {
  if (!task) return "inferred";
  return *task == Task::Classification ? "classification" : "regression";
}

}  // namespace

RunRecord PlannedRun::record() const {
  RunRecord r;
  r.key = key;
  r.experiment = experiment_name;
  r.dataset = dataset_name;
  r.pipeline = pipeline_name;
  nlohmann::json values = nlohmann::json::object();  // std::map inside: keys sorted
  for (const auto& [name, text] : overrides) values[name] = json_value(text);
  r.overrides = values.dump();
  r.seed = seed;
  return r;
}

std::vector<PlannedRun> plan_runs(const Experiment& e, const Registry& registry) {
  std::map<fs::path, std::string> digests;  // each data file hashed once
  const auto digest = [&](const fs::path& file) -> const std::string& {
    auto found = digests.find(file);
    if (found == digests.end()) found = digests.emplace(file, file_digest(file)).first;
    return found->second;
  };
  std::vector<std::string> texts;
  for (const ExperimentPipeline& p : e.pipelines) texts.push_back(experiment::pipeline_text(p.file));

  // Counted before any run is planned (each costs a parsed pipeline and a key), so that a grid
  // of a million points is refused at once, not after gigabytes.
  std::vector<std::vector<std::size_t>> axes;
  for (std::size_t p = 0; p < e.pipelines.size() && !e.datasets.empty(); ++p) {
    const Pipeline base = parse_pipeline(texts[p], e.pipelines[p].file, registry,
                                         e.pipelines[p].set, experiment::replacement(e, 0));
    axes.push_back(experiment::applicable_axes(e.grid, base, registry));
  }
  experiment::check_run_count(e, axes);

  std::vector<PlannedRun> runs;
  for (std::size_t d = 0; d < e.datasets.size(); ++d) {
    const ExperimentDataset& dataset = e.datasets[d];
    const DataReplacement data = experiment::replacement(e, d);
    std::string split = "given";
    if (dataset.split_train_rows != 0) split = "train_rows " + std::to_string(dataset.split_train_rows);
    if (dataset.split_folds != 0) split = "folds " + std::to_string(dataset.split_folds);
    for (std::size_t p = 0; p < e.pipelines.size(); ++p) {
      const ExperimentPipeline& entry = e.pipelines[p];
      const Pipeline base = parse_pipeline(texts[p], entry.file, registry, entry.set, data);
      const auto axes = experiment::applicable_axes(e.grid, base, registry);
      for (const experiment::GridPoint& point : experiment::grid_points(e.grid, axes)) {
        PlannedRun run;
        run.dataset = d;
        run.pipeline = p;
        run.overrides = point;
        run.experiment_name = e.name;
        run.dataset_name = dataset.name;
        run.pipeline_name = entry.name;
        run.resolved = parse_pipeline(texts[p], entry.file, registry,
                                      experiment::overrides(entry, point), data);
        // A dataset split in folds is cross-validated by the trainer, keeping the committee.
        if (dataset.split_folds != 0) run.resolved.evaluate.folds = dataset.split_folds;

        Sha1 common;
        common.field(kKeyFormat);
        common.field(e.name);
        common.field(dataset.name);
        common.field(entry.name);
        common.field(run.record().overrides);
        common.field(run.resolved.settings);
        common.field(digest(dataset.train));
        common.field(dataset.test ? digest(*dataset.test) : "no test file");
        common.field(split);
        common.field(run.resolved.data.target);
        common.field(task_name(run.resolved.data.task));
        common.field(run.resolved.data.standardize ? "standardize" : "raw");
        // The category coding adds a field only when chosen: runs stored without it keep
        // their keys.
        if (run.resolved.data.nominal_scale == NominalScale::Category)
          common.field("nominal-scale category");
        // The priors hash under the single prior table's name (kLegacyPriorTable), so runs
        // stored with one prior slot keep their keys; a second prior adds its own fields.
        const ComponentSpec* wp = run.resolved.component(Slot::WeightPenalty);
        const ComponentSpec* kp = run.resolved.component(Slot::KernelPrior);
        std::vector<std::tuple<std::string, Slot, const ComponentSpec*>> slots;
        for (const Slot slot : all_slots) {
          const ComponentSpec* spec = run.resolved.component(slot);
          if (slot == Slot::WeightPenalty) {
            slots.emplace_back(kLegacyPriorTable, wp || !kp ? slot : Slot::KernelPrior,
                               wp ? wp : kp);
          } else if (slot == Slot::KernelPrior) {
            if (wp && kp) slots.emplace_back(to_string(slot), slot, kp);
          } else if (spec || slot_required(slot)) {
            // An optional stage (refine) adds its fields only when there is one: runs without
            // keep their keys.
            slots.emplace_back(to_string(slot), slot, spec);
          }
        }
        for (const auto& [name, slot, spec] : slots) {
          common.field(name);
          if (spec == nullptr) {
            common.field("none");
            continue;
          }
          const ComponentInfo& info = registry.require(slot, spec->plugin);
          common.field(info.id);
          common.field(info.version);
        }
        for (std::uint64_t seed : e.seeds) {
          PlannedRun seeded = run;
          seeded.seed = seed;
          Sha1 hash = common;
          hash.field(std::to_string(seed));
          seeded.key = hash.hex();
          runs.push_back(std::move(seeded));
        }
      }
    }
  }
  return runs;
}

}  // namespace radial
