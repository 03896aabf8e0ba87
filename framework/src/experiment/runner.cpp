// run_experiment of radial/experiment/experiment.hpp: the runs not yet stored, `jobs` at a time
// from one queue, each stored as soon as it finishes. Data files are read once; a file split per
// seed is split here, so every run's data depends only on the file and its seed, never on jobs.

#include "radial/experiment/experiment.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_set>

#include "experiment_internal.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/training/trainer.hpp"

namespace radial {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The random stream of a per-seed split, apart from the trainer's streams (1..4, 100, 1000+).
constexpr std::uint64_t kSplitStream = 0x73706c6974;  // "split"

// A data file as read with some DataOptions: the data, or why it could not be read.
struct Loaded {
  std::optional<Dataset> data;
  std::string error;
};

using ReadKey = std::tuple<fs::path, std::string, std::optional<Task>,
                           std::optional<std::vector<double>>,
                           std::optional<std::vector<std::string>>, std::optional<std::size_t>,
                           std::vector<std::string>, bool, std::vector<std::string>, bool>;

class DataCache {
 public:
  const Loaded& get(const fs::path& file, const DataOptions& options) {
    const ReadKey key{file,
                      options.target,
                      options.task,
                      options.class_values,
                      options.class_names,
                      options.features,
                      options.nominal,
                      options.unseen_as_zero,
                      options.coding ? options.coding->coded_names() : std::vector<std::string>(),
                      options.allow_missing};
    auto found = files_.find(key);
    if (found != files_.end()) return found->second;
    Loaded loaded;
    try {
      loaded.data = read_dataset(file, options);
    } catch (const std::exception& error) {
      loaded.error = error.what();
    }
    return files_.emplace(key, std::move(loaded)).first->second;
  }

 private:
  std::map<ReadKey, Loaded> files_;
};

// Training and test data of one run, as read (raw, not standardised).
struct RunData {
  const Loaded* train = nullptr;
  const Loaded* test = nullptr;
};

RunData read_run_data(const PlannedRun& run, const Experiment& e, DataCache& cache) {
  RunData out;
  const ExperimentDataset& d = e.datasets[run.dataset];
  const DataOptions options = training_data_options(run.resolved);
  out.train = &cache.get(d.train, options);
  if (d.test && out.train->data) {
    DataOptions test = options;
    test.task = out.train->data->task;
    test.features = out.train->data->features();
    test.coding = out.train->data->coding;
    if (out.train->data->task == Task::Classification)
      use_classes_of(test, out.train->data->class_values, out.train->data->class_names);
    out.test = &cache.get(*d.test, test);
  }
  return out;
}

const Dataset& data_of(const Loaded& loaded) {
  if (!loaded.data) throw DataError(loaded.error);
  return *loaded.data;
}

std::pair<Dataset, Dataset> split_rows(const Dataset& data, std::size_t train_rows,
                                       std::uint64_t seed, const ExperimentDataset& d) {
  const std::size_t n = data.rows();
  if (train_rows >= n) {
    throw InputError(d.where.str() + ": split train_rows = " + std::to_string(train_rows) +
                     " but " + d.train.string() + " has " + std::to_string(n) +
                     " rows; train_rows must be below the number of rows so that test rows "
                     "remain");
  }
  const auto [train, test] = experiment::split_indices(data, train_rows, seed);
  return {select_rows(data, train), select_rows(data, test)};
}

RunRecord execute(const PlannedRun& run, const Experiment& e, const RunData& data,
                  const Registry& registry, int threads) {
  const auto start = Clock::now();
  RunRecord record = run.record();
  try {
    const ExperimentDataset& d = e.datasets[run.dataset];
    const Dataset& all = data_of(*data.train);
    Dataset train_data;
    std::optional<Dataset> test_data;
    if (d.split_train_rows != 0) {
      auto parts = split_rows(all, d.split_train_rows, run.seed, d);
      train_data = std::move(parts.first);
      test_data = std::move(parts.second);
    } else {
      train_data = all;  // a copy per running job: train() standardises it in place
      if (data.test != nullptr) {
        test_data = data_of(*data.test);
        if (test_data->feature_names != train_data.feature_names) {
          throw DataError(d.test->string() + ": its columns differ from the training file's " +
                          d.train.string() + " (same features, same order required)");
        }
      }
    }
    TrainOptions options;
    options.seed = run.seed;
    options.threads = threads;
    const TrainingResult result =
        train(run.resolved, registry, std::move(train_data), std::move(test_data), options);
    record.status = "ok";
    record.report = report_json(result.report);
  } catch (const std::exception& error) {
    record.status = "failed";
    record.message = error.what();
    record.report.clear();
  }
  record.seconds = seconds_since(start);
  return record;
}

}  // namespace

namespace experiment {

std::pair<std::vector<std::size_t>, std::vector<std::size_t>> split_indices(
    const Dataset& data, std::size_t train_rows, std::uint64_t seed) {
  const std::size_t n = data.rows();
  std::vector<std::vector<std::size_t>> groups(1);
  if (data.task == Task::Classification) {
    groups.assign(std::max<std::size_t>(data.num_classes, 1), {});
    for (std::size_t i = 0; i < n; ++i) groups[data.classes(i)].push_back(i);
  } else {
    groups[0].resize(n);
    std::iota(groups[0].begin(), groups[0].end(), 0);
  }
  // Each class's share of train_rows: floors first, the rows left over to the largest
  // remainders (ties to the lower class).
  std::vector<std::size_t> quota(groups.size()), remainder(groups.size()), order(groups.size());
  std::size_t given = 0;
  for (std::size_t c = 0; c < groups.size(); ++c) {
    quota[c] = train_rows * groups[c].size() / n;
    remainder[c] = train_rows * groups[c].size() % n;
    given += quota[c];
  }
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t i = 0; given < train_rows; ++i, ++given) ++quota[order[i]];

  std::mt19937_64 rng(derive_seed(seed, kSplitStream));
  std::vector<std::size_t> train, test;
  for (std::size_t c = 0; c < groups.size(); ++c) {
    std::vector<std::size_t>& rows = groups[c];
    std::shuffle(rows.begin(), rows.end(), rng);
    train.insert(train.end(), rows.begin(), rows.begin() + quota[c]);
    test.insert(test.end(), rows.begin() + quota[c], rows.end());
  }
  std::sort(train.begin(), train.end());
  std::sort(test.begin(), test.end());
  return {std::move(train), std::move(test)};
}

}  // namespace experiment

ExperimentSummary run_experiment(const Experiment& experiment, const std::vector<PlannedRun>& runs,
                                 ResultsStore& store, const Registry& registry,
                                 const ExperimentOptions& options) {
  const auto start = Clock::now();
  ExperimentSummary summary;
  summary.planned = runs.size();
  const std::vector<std::string> stored = store.keys(options.retry_failed);
  std::unordered_set<std::string> seen(stored.begin(), stored.end());
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (seen.count(runs[i].key) != 0) {
      ++summary.stored_before;
      continue;
    }
    seen.insert(runs[i].key);  // a key planned twice runs once
    todo.push_back(i);
  }
  if (todo.empty()) return summary;

  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Never more jobs, or threads per run, than the hardware runs (results do not depend on them).
  int jobs = options.jobs > 0 ? std::min(options.jobs, cores) : cores;
  jobs = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(jobs), todo.size()));
  const int threads =
      options.threads_per_run > 0 ? std::min(options.threads_per_run, cores) : std::max(1, cores / jobs);

  // Every file read once, before the workers start (file order of the runs: deterministic).
  DataCache cache;
  std::vector<RunData> data(runs.size());
  for (std::size_t i : todo) data[i] = read_run_data(runs[i], experiment, cache);

  // BLAS threads are one process-wide count that each concurrent run would set and restore,
  // and OpenBLAS sums in another order with another count: held at 1 for the whole experiment,
  // results do not depend on jobs (parallelism comes from jobs and the framework's row blocks).
  const SingleThreadedBlasScope blas;

  std::atomic<bool> stop{false};
  std::mutex mutex;  // progress, summary and the first store error
  std::exception_ptr store_error;  // or from the progress callback
  ExperimentProgress progress;
  progress.total = todo.size();

  const auto task = [&](std::size_t slot) {
    const PlannedRun& run = runs[todo[slot]];
    const RunRecord record = execute(run, experiment, data[todo[slot]], registry, threads);
    try {
      store.put(record);
    } catch (...) {
      // The database cannot take more runs: stop everyone, report it after the join.
      std::lock_guard<std::mutex> lock(mutex);
      if (!store_error) store_error = std::current_exception();
      stop = true;
      return;
    }
    std::lock_guard<std::mutex> lock(mutex);
    ++summary.ran;
    ++progress.done;
    if (record.status != "ok") ++summary.failed, ++progress.failed;
    if (options.progress) {
      progress.elapsed = seconds_since(start);
      progress.finished = &run;
      progress.record = &record;
      try {
        options.progress(progress);
      } catch (...) {
        if (!store_error) store_error = std::current_exception();
        stop = true;
      }
      progress.finished = nullptr;
      progress.record = nullptr;
    }
  };
  run_task_queue(todo.size(), std::size_t(jobs), stop, task);
  if (store_error) std::rethrow_exception(store_error);
  return summary;
}

}  // namespace radial
