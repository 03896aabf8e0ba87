// The experiment part of radial-bench: per-run overhead of run_experiment beyond training time
// (planning excluded, storing included) and the speed-up of jobs = 2 over jobs = 1.
#include "experiment_bench.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "radial/core/errors.hpp"
#include "radial/experiment/experiment.hpp"
#include "radial/experiment/results_store.hpp"
#include "radial/experiment/results_table.hpp"

extern "C" {
// OpenBLAS's own description of the kernels it chose (declared here, as blas_threads.cpp does).
char* openblas_get_corename(void);
char* openblas_get_config(void);
}

namespace radial::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Pass {
  double wall = 0;      // seconds of run_experiment
  double cpu = 0;       // user + system seconds of this process during it
  double training = 0;  // sum of the stored reports' "seconds"
  std::size_t ran = 0, failed = 0;
  std::map<std::string, double> errors;  // key -> test.error_rate, to compare the passes
};

// The 1-minute load average: on a shared machine the jobs = 2 figure means little above ~2.
double cpu_seconds() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

Pass run_pass(const Registry& registry, const fs::path& file, const fs::path& database, int jobs,
              int threads_per_run) {
  fs::remove(database);
  const Experiment experiment = read_experiment(file, registry);
  const std::vector<PlannedRun> runs = plan_runs(experiment, registry);
  ResultsStore store(database);
  ExperimentOptions options;
  options.jobs = jobs;
  options.threads_per_run = threads_per_run;  // 0: cores / jobs, as `radial experiment`
  const double cpu_start = cpu_seconds();
  const auto start = Clock::now();
  const ExperimentSummary summary = run_experiment(experiment, runs, store, registry, options);
  Pass pass;
  pass.wall = std::chrono::duration<double>(Clock::now() - start).count();
  pass.cpu = cpu_seconds() - cpu_start;
  pass.ran = summary.ran;
  pass.failed = summary.failed;
  for (const RunRecord& run : store.runs(experiment.name)) {
    if (run.status == "ok")
      pass.training += nlohmann::json::parse(run.report).at("seconds").get<double>();
    pass.errors[run.key] = run_value(run, "test.error_rate").value_or(-1.0);
  }
  return pass;
}

}  // namespace

std::string machine_lines() {
  std::string model = "unknown";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  std::ostringstream out;
  out << "CPU: " << model << "\nBLAS: OpenBLAS core " << openblas_get_corename() << " ("
      << openblas_get_config() << ")\n";
  return out.str();
}

void experiment_bench(const Registry& registry, const fs::path& data_dir, const fs::path& work,
                      std::size_t runs, std::size_t repeats, std::ostream& out) {
  const std::size_t seeds = std::max<std::size_t>(1, runs / 2);
  const fs::path folder = work / "experiment";
  fs::create_directories(folder);
  // Two pipelines (irls, least-squares) x `seeds` seeds on the synth3 pair.
  for (const char* output : {"irls", "least-squares"})
    std::ofstream(folder / (std::string(output) + ".toml"))
        << "name = \"synth3 " << output << "\"\n[data]\nstandardize = false\n"
        << "[basis]\nplugin = \"thin-plate\"\n[centres]\nplugin = \"kmeans\"\ncount = 10\n"
        << "[output]\nplugin = \"" << output << "\"\n";
  const fs::path file = folder / "bench.toml";
  {
    std::ofstream exp(file);
    exp << "name = \"radial-bench experiment\"\nseeds = [";
    for (std::size_t s = 1; s <= seeds; ++s) exp << (s > 1 ? ", " : "") << s;
    exp << "]\n[[datasets]]\nname = \"synth3\"\ntrain = \""
        << (data_dir / "synth3_train.csv").string() << "\"\ntest = \""
        << (data_dir / "synth3_test.csv").string() << "\"\ntarget = \"label\"\n"
        << "[[pipelines]]\nname = \"irls\"\nfile = \"irls.toml\"\n"
        << "[[pipelines]]\nname = \"least-squares\"\nfile = \"least-squares.toml\"\n";
  }
  const std::size_t total = 2 * seeds;
  const double load = load_average();
  std::cerr << "[radial-bench] experiment of " << total << " runs, jobs 1 and 2\n";
  // jobs 1 and jobs 2 with one thread per run (the pure effect of jobs), and jobs 1 with the
  // host's default of cores / jobs threads per run (what `radial experiment --jobs 1` does).
  struct Mode {
    const char* label;
    int jobs, threads_per_run;
  };
  const std::vector<Mode> modes = {{"jobs 1", 1, 1},
                                   {"jobs 2", 2, 1},
                                   {"jobs 1, cores/jobs threads per run (the CLI default)", 1, 0}};
  // Alternating passes, the median by wall time of each: load from elsewhere hits all alike.
  std::vector<std::vector<Pass>> passes(modes.size());
  for (std::size_t r = 0; r < std::max<std::size_t>(1, repeats); ++r)
    for (std::size_t m = 0; m < modes.size(); ++m)
      passes[m].push_back(run_pass(registry, file,
                                   folder / ("mode" + std::to_string(m) + ".sqlite"),
                                   modes[m].jobs, modes[m].threads_per_run));
  std::vector<Pass> median;
  for (auto& list : passes) {
    std::sort(list.begin(), list.end(),
              [](const Pass& a, const Pass& b) { return a.wall < b.wall; });
    median.push_back(list[list.size() / 2]);
    if (median.back().ran != total)
      throw Error("radial-bench: the experiment ran " + std::to_string(median.back().ran) +
                  " runs, not " + std::to_string(total));
  }
  bool same = true;
  for (const Pass& p : median) same = same && p.errors == median.front().errors;

  // Wall time beyond the training time of the runs, per run (with jobs at once, jobs x wall).
  const auto overhead_ms = [&](const Pass& p, int jobs) {
    return 1e3 * (double(jobs) * p.wall - p.training) / double(total);
  };
  out << "\nExperiment: " << total << " runs (synth3 250/1000 rows, k-means M = 10, thin-plate, "
      << "irls and least-squares x " << seeds << " seeds), fresh databases, median of "
      << passes.front().size() << " passes; load average " << std::fixed << std::setprecision(2)
      << load << " before\n"
      << std::setprecision(3) << "  " << std::left << std::setw(54) << "" << std::right
      << std::setw(8) << "wall s" << std::setw(8) << "cpu s" << std::setw(12) << "training s"
      << std::setw(17) << "overhead ms/run" << std::setw(8) << "failed" << "\n";
  for (std::size_t m = 0; m < modes.size(); ++m)
    out << "  " << std::left << std::setw(54) << modes[m].label << std::right << std::setw(8)
        << median[m].wall << std::setw(8) << median[m].cpu << std::setw(12) << median[m].training
        << std::setw(17) << overhead_ms(median[m], modes[m].jobs) << std::setw(8)
        << median[m].failed << "\n";
  out << "  overhead ms/run = (jobs x wall - training) / runs; cpu s < jobs x wall means the "
         "cores were shared\n"
      << "  overhead per run beyond training (jobs 1): " << std::setprecision(2)
      << overhead_ms(median[0], 1) << " ms (target <= 10)\n"
      << "  speed-up jobs 2 / jobs 1: " << median[0].wall / median[1].wall
      << "x (target >= 1.8); against jobs 1 with the CLI's threads per run: "
      << median[2].wall / median[1].wall << "x\n"
      << "  test error rates of the databases "
      << (same ? "identical" : "DIFFER (stored results depend on jobs)") << "\n"
      << std::defaultfloat;
}

}  // namespace radial::bench
