#pragma once
// The results store of experiments (docs/experiments.md): an SQLite database with one row per
// run, keyed by a hash of everything that determines the run. A run is stored complete or not
// at all (one transaction per run), so a process killed at any moment (kill -9 included) loses
// no stored run and leaves a database the next process continues from. Several processes may
// use one database at once (WAL journal, busy timeout): each row is written whole, and a run
// stored twice (two processes racing) replaces itself with an identical row.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace radial {

// One run of an experiment as stored.
struct RunRecord {
  std::string key;         // hex hash of what determines the run (pipeline settings after
                           // overrides, data file contents, split, seed, plugin versions)
  std::string experiment;  // the experiment's name
  std::string dataset, pipeline;
  std::string overrides;   // JSON object of the grid values: {"kernel-prior.alpha": 5}; "{}"
  std::uint64_t seed = 0;
  std::string status;      // "ok" or "failed"
  std::string message;     // why it failed (the error message), else empty
  double seconds = 0;      // wall time of the run
  std::string report;      // the training report JSON (report_json); empty when failed
};

class ResultsStore {
 public:
  // ReadWrite opens or creates the database (OutputError when it is read-only). ReadOnly, for
  // readers (`radial results`, `radial plot results`), neither creates nor changes anything:
  // the file must exist and be a results database already. InputError naming the file when it
  // cannot be opened, or is not a Radial results database (another SQLite file, a text file,
  // an empty file for a reader, a database whose tables were dropped or replaced).
  enum class Access { ReadWrite, ReadOnly };
  explicit ResultsStore(const std::filesystem::path& file, Access access = Access::ReadWrite);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  const std::filesystem::path& file() const { return file_; }

  // Keys of every stored run; with `completed_only`, of the runs stored with status "ok" (a
  // failed run is then run again: `radial experiment --retry-failed`).
  std::vector<std::string> keys(bool completed_only = false) const;
  // Stores `run` in one transaction. A row with the same identity (experiment, dataset,
  // pipeline, overrides, seed) but another key (its pipeline or data changed) is replaced.
  // Thread-safe. OutputError when the database cannot be written (disk full, read-only).
  void put(const RunRecord& run);
  // Every run, ordered by experiment, dataset, pipeline, overrides, seed; or only those of
  // `experiment` when it is not empty.
  std::vector<RunRecord> runs(const std::string& experiment = {}) const;
  // The same runs one at a time, never all in memory (tables over 10^5 runs); `visit` must not
  // call the store.
  void for_each_run(const std::function<void(RunRecord&&)>& visit,
                    const std::string& experiment = {}) const;
  // The experiments with stored runs, by name.
  std::vector<std::string> experiments() const;

  // The [table] an experiment asked for, as JSON (results_table.hpp: table_spec_json), so that
  // `radial results` prints the same table; empty when none is stored. One transaction.
  void set_table(const std::string& experiment, const std::string& spec_json);
  std::string table(const std::string& experiment) const;

 private:
  struct Impl;
  std::filesystem::path file_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace radial
