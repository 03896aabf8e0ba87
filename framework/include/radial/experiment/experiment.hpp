#pragma once
// Experiments as files (docs/experiments.md): datasets × pipelines × grid points × seeds, each
// combination one run, stored in a results database (results_store.hpp) and shown as tables
// (results_table.hpp). read_experiment checks the whole file, and every pipeline it names with
// each of its overrides, before any run; plan_runs hashes what determines each run so that a
// stored run is never repeated and a changed data file or pipeline reruns exactly its runs.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/experiment/results_store.hpp"
#include "radial/experiment/results_table.hpp"

namespace radial {

struct ExperimentDataset {
  std::string name;
  // Either a given pair (train, test) ...
  std::filesystem::path train;                 // absolute
  std::optional<std::filesystem::path> test;   // absolute
  // ... or one file (in `train`) split per seed: a random stratified split with train_rows
  // training rows (the rest is the test set), or k-fold cross-validation (metrics as `cv`).
  std::size_t split_train_rows = 0;            // 0: not this kind of split
  std::size_t split_folds = 0;                 // 0: not this kind of split
  std::optional<std::string> target;
  std::optional<Task> task;
  SourcePosition where;                        // of its [[datasets]] entry
};

struct ExperimentPipeline {
  std::string name;
  std::filesystem::path file;                  // absolute
  std::vector<std::string> set;                // overrides "slot.key=value", as for --set
  SourcePosition where;
};

struct GridAxis {
  std::string key;                             // "weight-penalty.alpha"
  std::vector<std::string> values;             // each as TOML text ("0", "0.5", "\"scg\"")
  SourcePosition where;
};

struct Experiment {
  std::filesystem::path file;                  // absolute
  std::string name;                            // default: the file's stem
  std::vector<std::uint64_t> seeds{1};
  std::vector<ExperimentDataset> datasets;
  std::vector<ExperimentPipeline> pipelines;
  std::vector<GridAxis> grid;
  TableSpec table;
};

// Reads and checks an experiment file: PipelineError "file:line:column: message" (with "did you
// mean") for anything wrong in it, and every pipeline it names is read with its overrides and
// each grid point that applies to it (a grid key applies to a pipeline whose plugin in that
// slot declares the parameter), so a bad pipeline or override is reported before any run.
Experiment read_experiment(const std::filesystem::path& file, const Registry& registry);
Experiment parse_experiment(const std::string& text, const std::filesystem::path& file,
                            const Registry& registry);

// One run: a dataset, a pipeline with one grid point, a seed.
struct PlannedRun {
  std::size_t dataset = 0, pipeline = 0;       // indices into the experiment
  std::vector<std::pair<std::string, std::string>> overrides;  // grid point: key, TOML value
  std::uint64_t seed = 0;
  Pipeline resolved;                           // the pipeline with its set, the grid point and
                                               // the dataset's files, validated
  std::string key;                             // RunRecord::key
  std::string experiment_name, dataset_name, pipeline_name;  // for record()
  RunRecord record() const;                    // identity fields filled, status empty
};

// Every run of the experiment in a fixed order (dataset, pipeline, grid point, seed), with its
// key. Reads each data file once to hash its contents (DataError naming an unreadable one).
// More runs than max_planned_runs are refused (InputError) before any is planned.
constexpr std::size_t max_planned_runs = 100'000;
std::vector<PlannedRun> plan_runs(const Experiment& experiment, const Registry& registry);

struct ExperimentProgress {
  std::size_t done = 0, total = 0, failed = 0;  // runs finished in this process (and to do)
  double elapsed = 0;                           // seconds since the start
  const PlannedRun* finished = nullptr;         // the run just finished
  const RunRecord* record = nullptr;            // its result
};

struct ExperimentOptions {
  int jobs = 0;              // runs at once (0: all cores)
  int threads_per_run = 0;   // 0: cores / jobs, at least 1
  bool retry_failed = false; // run again the runs stored as failed (else they count as done)
  std::function<void(const ExperimentProgress&)> progress;  // called after each run, serialised
};

struct ExperimentSummary {
  std::size_t planned = 0, stored_before = 0, ran = 0, failed = 0;
};

// Runs every planned run whose key is not in `store` yet, `jobs` at a time, storing each as it
// finishes (failed runs with their message; the others go on). Data files are read once. The
// stored results do not depend on `jobs`.
ExperimentSummary run_experiment(const Experiment& experiment, const std::vector<PlannedRun>& runs,
                                 ResultsStore& store, const Registry& registry,
                                 const ExperimentOptions& options = {});

}  // namespace radial
