// experiment and results: run an experiment file into its results database, print tables.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "progress.hpp"

#include "radial/core/errors.hpp"
#include "radial/experiment/experiment.hpp"
#include "radial/io/output_file.hpp"
#include "radial/core/params.hpp"
#include "radial/experiment/results_store.hpp"
#include "radial/experiment/results_table.hpp"

namespace radial::cli {
namespace {

namespace fs = std::filesystem;

TableFormat table_format(const std::string& name) {
  if (name == "text") return TableFormat::Text;
  if (name == "markdown") return TableFormat::Markdown;
  if (name == "csv") return TableFormat::Csv;
  return TableFormat::Json;  // CLI11 admits only the four names
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();
  return parts;
}

// --table rows=dataset+weight-penalty.alpha,columns=pipeline,value=test.error_rate,compare=A+B
TableSpec table_option(const std::string& text, TableSpec spec) {
  const std::string usage =
      "; write --table rows=DIM[+DIM],columns=DIM[+DIM],value=PATH[,compare=A+B] (any of them)";
  for (const std::string& item : split(text, ',')) {
    const auto equals = item.find('=');
    const std::string key = item.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : item.substr(equals + 1);
    if (equals == std::string::npos || value.empty()) {
      throw InputError("--table " + text + ": '" + item + "' is not key=value" + usage);
    }
    if (key == "rows") spec.rows = split(value, '+');
    else if (key == "columns") spec.columns = split(value, '+');
    else if (key == "value") spec.value = value;
    else if (key == "compare") spec.compare = split(value, '+');
    else {
      const std::string close = did_you_mean(key, {"rows", "columns", "value", "compare"});
      throw InputError("--table " + text + ": unknown key '" + key + "'" +
                       (close.empty() ? "" : " (did you mean '" + close + "'?)") + usage);
    }
  }
  if (!spec.compare.empty() && spec.compare.size() != 2) {
    throw InputError("--table " + text + ": compare names two columns, A+B");
  }
  return spec;
}

std::string describe(const Experiment& e, const PlannedRun& run, const RunRecord& record) {
  std::string text = e.datasets[run.dataset].name + " / " + e.pipelines[run.pipeline].name;
  for (const auto& [key, value] : run.overrides) text += " " + key + "=" + value;
  text += " / seed " + std::to_string(run.seed) + ": ";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f s", record.seconds);
  return text + (record.status == "ok" ? "ok, " + std::string(seconds) : "failed: " + record.message);
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  return fs::equivalent(a, b, error);
}

// The results database must not be one of the experiment's inputs.
void check_not_an_input(const fs::path& database, const Experiment& e) {
  std::vector<std::pair<std::string, fs::path>> inputs{{"the experiment file", e.file}};
  for (const auto& d : e.datasets) {
    inputs.push_back({"data of dataset '" + d.name + "'", d.train});
    if (d.test) inputs.push_back({"test data of dataset '" + d.name + "'", *d.test});
  }
  for (const auto& p : e.pipelines) inputs.push_back({"the file of pipeline '" + p.name + "'", p.file});
  // SQLite writes beside the database (-wal, -shm, -journal) and deletes those files again.
  const std::vector<fs::path> written{database, database.string() + "-wal",
                                      database.string() + "-shm",
                                      database.string() + "-journal"};
  for (const auto& [what, path] : inputs) {
    for (const fs::path& file : written) {
      if (!same_file(file, path)) continue;
      throw InputError("--results " + database.string() + ": " +
                       (file == database ? std::string("the database")
                                         : "its SQLite side file " + file.string()) +
                       " is " + what + "; name another file for the results database");
    }
  }
}

}  // namespace

int experiment_command(const Registry& registry, const ExperimentArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  // Everything is checked, every pipeline with its overrides, before any run.
  const Experiment experiment = read_experiment(args.file, registry);
  const TableFormat format = table_format(args.format);
  const fs::path database =
      args.results.empty()
          ? experiment.file.parent_path() / (experiment.file.stem().string() + ".results.sqlite")
          : fs::path(args.results);
  check_not_an_input(database, experiment);
  const std::vector<PlannedRun> runs = plan_runs(experiment, registry);
  ResultsStore store(database);
  store.set_table(experiment.name, table_spec_json(experiment.table));  // for `radial results`

  ProgressLine progress(args.quiet);
  ExperimentOptions options;
  options.jobs = args.jobs;
  options.retry_failed = args.retry_failed;
  options.progress = [&](const ExperimentProgress& p) {
    progress.update(p.done, p.total, p.failed, p.elapsed, describe(experiment, *p.finished, *p.record));
  };
  const ExperimentSummary summary = run_experiment(experiment, runs, store, registry, options);
  progress.finish();

  // The table shows this experiment's current runs, in planned order.
  std::map<std::string, RunRecord> stored;
  for (RunRecord& r : store.runs(experiment.name)) stored.emplace(r.key, std::move(r));
  std::vector<RunRecord> current;
  std::size_t failed = 0;
  for (const PlannedRun& run : runs) {
    const auto found = stored.find(run.key);
    if (found == stored.end()) continue;  // another process replaced it with a newer key
    failed += found->second.status != "ok";
    current.push_back(found->second);
  }
  const std::string text = format == TableFormat::Json
                               ? runs_json(current)
                               : format_table(make_table(current, experiment.table, experiment.name), format);
  if (!args.quiet) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "experiment '%s': %zu runs, %zu already stored, %zu run now in %s, %zu failed; results in %s\n",
                 experiment.name.c_str(), summary.planned, summary.stored_before, summary.ran,
                 clock_text(seconds).c_str(), failed, database.string().c_str());
  }
  write_stdout(text);
  return 0;
}

int results_command(const ResultsArgs& args) {
  std::error_code error;
  const auto status = fs::status(args.database, error);
  if (!fs::exists(status)) {
    throw InputError(args.database + ": results database not found; run `radial experiment FILE` "
                     "first, or name the file with --results");
  }
  if (!fs::is_regular_file(status)) {
    throw InputError(args.database + ": is not a file; name a results database (.sqlite)");
  }
  const ResultsStore store(args.database, ResultsStore::Access::ReadOnly);
  const TableFormat format = table_format(args.format);
  if (format == TableFormat::Json) {
    write_stdout(runs_json(store.runs()));
    return 0;
  }
  // One table per experiment in the database, its runs read one at a time and cut to what
  // the table needs (200,000 stored runs would otherwise be held whole, twice).
  const std::vector<std::string> experiments = store.experiments();
  std::string text;
  for (const std::string& name : experiments) {
    // The experiment's own [table] (stored by `radial experiment`), changed by --table.
    const std::string stored = store.table(name);
    const TableSpec spec =
        table_option(args.table, stored.empty() ? TableSpec() : table_spec_from_json(stored));
    const std::vector<RunRecord> of = runs_for_table(
        [&](const std::function<void(RunRecord&&)>& visit) { store.for_each_run(visit, name); },
        spec);
    if (!text.empty()) text += format == TableFormat::Csv ? "\n" : "\n\n";
    text += format_table(make_table(of, spec, name), format);
  }
  if (experiments.empty()) {
    throw InputError(args.database + ": holds no runs yet");
  }
  write_stdout(text);
  return 0;
}

}  // namespace radial::cli
