// The distributed part of radial-bench (distributed_bench.hpp).
//
// Every measurement is a child `mpirun -np P radial train` with one thread per rank, each rank
// wrapped in /usr/bin/time so that its own peak RSS is known, and RADIAL_COLLECTIVES_STATS=1 so
// that rank 0 prints what its rank-ordered sums carried. Stage times are the report's
// per-stage seconds (rank 0's; every stage ends in a collective, so the ranks finish together).
#include "distributed_bench.hpp"

#include <sys/wait.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "radial/core/errors.hpp"

namespace radial::bench {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::size_t d = 16, classes = 4;

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv with `extra_env` added (replacing variables of the same name), stdout and stderr to
// files. Returns the exit status (-1: killed by a signal) and the wall seconds.
std::pair<int, double> spawn(const std::vector<std::string>& argv,
                             const std::vector<std::string>& extra_env, const fs::path& out,
                             const fs::path& err) {
  std::vector<std::string> env = environment_with(extra_env), argv_store = argv;
  std::vector<char*> envp = c_strings(env), args = c_strings(argv_store);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("radial-bench: cannot start " + argv[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, seconds};
}

// One training under mpirun and what it measured.
struct Run {
  json report;
  double wall = 0;
  std::vector<double> peak_kb;  // per rank
  std::vector<double> cpu;      // per rank: user + system seconds of the whole run
  double sums = 0, values = 0;  // rank 0's rank-ordered sums: calls and values carried
  // Every MPI call of each rank (mpi_traffic.cpp): calls and bytes sent to the other ranks.
  std::vector<double> mpi_calls, mpi_bytes;
  // The same per operation and rank: op -> (calls, bytes sent).
  std::vector<std::map<std::string, std::pair<double, double>>> mpi_ops;
};

double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

class DistributedBench {
 public:
  DistributedBench(const DistributedSettings& s, std::ostream& out) : s_(s), out_(out) {}

  void run() {
    fs::create_directories(s_.work);
    const fs::path version_file = s_.work / "mpirun.version";
    spawn({s_.mpirun, "--version"}, {}, version_file, s_.work / "mpirun.err");
    std::string version = slurp(version_file);
    version = version.substr(0, version.find('\n'));
    out_ << "\nDistributed: `mpirun -np P radial train` on .npy data (d = " << d << ", " << classes
         << " classes), 1 thread per rank, " << version << "; load average "
         << std::fixed << std::setprecision(2) << load_average() << " before\n"
         << std::defaultfloat;
    scaling();
    traffic();
    prediction();
  }

 private:
  struct Case {
    std::string name, stage;
    std::function<std::string(std::size_t)> body;  // TOML after [data], given the iterations
    std::size_t iterations;
  };

  std::vector<Case> scaling_cases() const {
    return {
        {"k-means M = 256 (" + std::to_string(s_.kmeans_iterations) + " Lloyd its)", "centres",
         [](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\nwidth = 4.0\n[centres]\nplugin = \"kmeans\"\n"
                  "count = 256\ninit = \"random\"\ntolerance = 0.0\niterations = " +
                  std::to_string(its) +
                  "\n[output]\nplugin = \"least-squares\"\nsolver = \"normal-equations\"\n";
         },
         s_.kmeans_iterations},
        {"GMM diagonal k = 64 (" + std::to_string(s_.gmm_iterations) + " EM its)", "centres",
         [](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"gmm\"\ncount = 64\n"
                  "covariance = \"diagonal\"\ntolerance = 0.0\niterations = " +
                  std::to_string(its) +
                  "\n[output]\nplugin = \"least-squares\"\nsolver = \"normal-equations\"\n";
         },
         s_.gmm_iterations},
        {"Gaussian + IRLS softmax M = 64 (" + std::to_string(s_.irls_iterations) + " its)",
         "output",
         [](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\nwidth = 4.0\n[centres]\nplugin = \"kmeans\"\n"
                  "count = 64\niterations = 10\ntolerance = 0.0\n[output]\nplugin = \"irls\"\n"
                  "link = \"softmax\"\ntolerance = 1e-300\niterations = " +
                  std::to_string(its) +
                  "\n[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.001\n";
         },
         s_.irls_iterations},
    };
  }

  fs::path data_file(std::size_t n) {
    const fs::path file = s_.work / ("train-" + std::to_string(n) + ".npy");
    if (!fs::exists(file)) {
      std::cerr << "[radial-bench] writing " << file << "\n";
      const auto [status, seconds] =
          spawn({s_.python.string(), s_.make_data.string(), file.string(), std::to_string(n), "1"},
                {}, s_.work / "make_data.out", s_.work / "make_data.err");
      (void)seconds;
      if (status != 0)
        throw Error("radial-bench: " + s_.make_data.string() + " failed: " +
                    slurp(s_.work / "make_data.err"));
    }
    return file;
  }

  // `mpirun -np ranks radial train` of the pipeline `body` on `train`; each rank under
  // /usr/bin/time (its peak RSS into rss.<rank>).
  Run train_run(const fs::path& train, const std::string& body, int ranks, const std::string& tag) {
    const fs::path pipeline = s_.work / (tag + ".toml");
    std::ofstream(pipeline) << "name = \"radial-bench distributed: " << tag
                            << "\"\nseed = 1\nthreads = 1\n[data]\ntrain = \"" << train.string()
                            << "\"\nstandardize = true\n"
                            << body;
    const fs::path report = s_.work / (tag + ".json"), rss = s_.work / (tag + ".rss");
    for (int r = 0; r < ranks; ++r) fs::remove(rss.string() + "." + std::to_string(r));
    std::vector<std::string> argv{s_.mpirun};
    if (geteuid() == 0) argv.push_back("--allow-run-as-root");
    if (unsigned(ranks) > std::max(1u, std::thread::hardware_concurrency()))
      argv.push_back("--oversubscribe");
    argv.insert(argv.end(),
                {"-np", std::to_string(ranks), "-x", "OPENBLAS_NUM_THREADS", "-x",
                 "RADIAL_COLLECTIVES_STATS", "sh", "-c",
                 "exec /usr/bin/time -f '%U %S %M' -o \"$0.$OMPI_COMM_WORLD_RANK\" env \"LD_PRELOAD=" +
                     s_.traffic_lib.string() + "\" \"$@\"",
                 rss.string(),
                 s_.radial.string(), "train", pipeline.string(), "--threads", "1", "--quiet",
                 "--report", report.string()});
    const fs::path err = s_.work / (tag + ".err");
    const auto [status, wall] = spawn(
        argv, {"OPENBLAS_NUM_THREADS=1", "RADIAL_COLLECTIVES_STATS=1"}, s_.work / (tag + ".out"), err);
    if (status != 0)
      throw Error("radial-bench: `mpirun -np " + std::to_string(ranks) + " radial train " +
                  pipeline.string() + "` failed (exit " + std::to_string(status) + "): " +
                  slurp(err));
    Run run;
    run.wall = wall;
    std::ifstream in(report);
    run.report = json::parse(in);
    for (int r = 0; r < ranks; ++r) {
      // /usr/bin/time -o writes "Command exited..." lines first when the command fails; the
      // last line is "%U %S %M".
      std::istringstream lines(slurp(rss.string() + "." + std::to_string(r)));
      std::string line, last;
      while (std::getline(lines, line))
        if (!line.empty()) last = line;
      double user = std::nan(""), system = std::nan(""), peak = std::nan("");
      std::istringstream(last) >> user >> system >> peak;
      run.peak_kb.push_back(peak);
      run.cpu.push_back(user + system);
    }
    // "radial: collectives on rank 0 of P: S sums, V values (B bytes)"
    static const std::regex stats(R"(collectives on rank 0 of \d+: (\d+) sums, (\d+) values)");
    std::smatch m;
    const std::string text = slurp(err);
    if (std::regex_search(text, m, stats)) {
      run.sums = std::stod(m[1]);
      run.values = std::stod(m[2]);
    } else {
      run.sums = run.values = std::nan("");
    }
    static const std::regex traffic(R"(mpi-traffic: rank (\d+) of \d+: (\d+) bytes sent in (\d+) calls)");
    run.mpi_calls.assign(std::size_t(ranks), std::nan(""));
    run.mpi_bytes.assign(std::size_t(ranks), std::nan(""));
    run.mpi_ops.assign(std::size_t(ranks), {});
    static const std::regex op(R"(([a-z]+) (\d+)/(\d+))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), traffic);
         it != std::sregex_iterator(); ++it) {
      const std::size_t r = std::stoul((*it)[1]);
      if (r >= std::size_t(ranks)) continue;
      run.mpi_bytes[r] = std::stod((*it)[2]);
      run.mpi_calls[r] = std::stod((*it)[3]);
      // "(calls/bytes: alltoall 12/345, ...)" up to the end of the line
      const std::string rest = it->suffix().str().substr(0, it->suffix().str().find('\n'));
      for (auto o = std::sregex_iterator(rest.begin(), rest.end(), op); o != std::sregex_iterator(); ++o)
        run.mpi_ops[r][(*o)[1]] = {std::stod((*o)[2]), std::stod((*o)[3])};
    }
    return run;
  }

  static double stage_seconds(const Run& r, const std::string& stage) {
    return r.report.at(stage).at("seconds").get<double>();
  }

  void scaling() {
    out_ << "\n  Scaling (stage s = the data passes: the report's seconds of the centres stage "
            "(k-means, GMM) or the output stage (IRLS); peak RSS per rank and cpu s (user + "
            "system, the busiest rank, whole run) by /usr/bin/time; budget = the rank's shard + "
            "256 MB; sums = rank-ordered sums, MPI = every call of rank 0, PMPI)\n";
    out_ << "  " << std::left << std::setw(42) << "case" << std::right << std::setw(10) << "N"
         << std::setw(4) << "P" << std::setw(10) << "stage s" << std::setw(9) << "speed-up"
         << std::setw(9) << "total s" << std::setw(9) << "wall s" << std::setw(20)
         << "peak RSS/rank MB" << std::setw(11) << "budget MB" << std::setw(9) << "sums"
         << std::setw(11) << "MB summed" << std::setw(11) << "MPI calls" << std::setw(12)
         << "MB sent" << std::setw(12) << "cpu s/rank" << std::setw(10) << "cpu x" << "\n";
    for (std::size_t n : s_.sizes) {
      const fs::path train = data_file(n);
      for (const Case& c : scaling_cases()) {
        double base = 0, base_cpu = 0;
        for (int p : s_.ranks) {
          std::vector<double> stage, total, wall, cpu;
          Run last;
          for (std::size_t r = 0; r < s_.repeats; ++r) {
            std::cerr << "[radial-bench] " << c.name << ", N=" << n << ", P=" << p << "\n";
            last = train_run(train, c.body(c.iterations), p, "scale");
            stage.push_back(stage_seconds(last, c.stage));
            total.push_back(last.report.at("seconds").get<double>());
            wall.push_back(last.wall);
            cpu.push_back(*std::max_element(last.cpu.begin(), last.cpu.end()));
          }
          if (p == s_.ranks.front()) {
            base = median(stage);
            base_cpu = median(cpu);
          }
          // Rows of each rank: even shards of the .npy (header and row alignment aside).
          const double shard_mb = double(n) / p * double(d + 1) * 8 / 1048576.0;
          std::ostringstream rss;
          for (std::size_t r = 0; r < last.peak_kb.size(); ++r)
            rss << (r ? " " : "") << std::fixed << std::setprecision(0) << last.peak_kb[r] / 1024;
          out_ << "  " << std::left << std::setw(42) << c.name << std::right << std::setw(10) << n
               << std::setw(4) << p << std::fixed << std::setprecision(2) << std::setw(10)
               << median(stage) << std::setw(9) << base / median(stage) << std::setw(9)
               << median(total) << std::setw(9) << median(wall) << std::setw(20) << rss.str()
               << std::setprecision(0) << std::setw(11) << shard_mb + 256 << std::setw(9)
               << last.sums << std::setprecision(2) << std::setw(11)
               << last.values * 8 / 1048576.0 << std::setprecision(0) << std::setw(11)
               << last.mpi_calls[0] << std::setprecision(2) << std::setw(12)
               << last.mpi_bytes[0] / 1048576.0 << std::setw(12) << median(cpu) << std::setw(10)
               << base_cpu / median(cpu) << "\n"
               << std::defaultfloat;
          if (n == s_.sizes.back())
            measured_[c.name][p] = {median(cpu), last.mpi_calls[0], last.mpi_bytes[0], last.mpi_ops};
        }
      }
    }
  }

  // Per-iteration volume of the rank-ordered sums: two runs differing only in the iteration
  // count, their difference divided by the extra iterations (or evaluations), against the model
  // of docs/distributed.md.
  void traffic() {
    const std::size_t m = 64, k = classes, w = (m + 1) * k, i1 = 3, i2 = 6;
    const fs::path train = data_file(s_.traffic_rows);
    struct Algorithm {
      std::string name;
      std::function<std::string(std::size_t)> body;
      std::string unit;                               // "iteration" or "evaluation"
      std::function<double(const json&)> units;       // iterations or evaluations in a report
      std::function<double(const json&, const json&)> model;  // values per unit
      std::string formula;
    };
    const auto centres_its = [](const json& r) { return r.at("centres").at("iterations").get<double>(); };
    const auto output_its = [](const json& r) { return r.at("output").at("iterations").get<double>(); };
    const auto fixed = [](double v) { return [v](const json&, const json&) { return v; }; };
    const std::string ls = "\n[output]\nplugin = \"least-squares\"\nsolver = \"normal-equations\"\n";
    const std::string km64 = "[basis]\nplugin = \"gaussian\"\nwidth = 4.0\n[centres]\nplugin = "
                             "\"kmeans\"\ncount = 64\niterations = 5\ntolerance = 0.0\n";
    std::vector<Algorithm> algorithms{
        {"k-means M = 256",
         [&](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"kmeans\"\ncount = 256\n"
                  "init = \"random\"\ntolerance = 0.0\niterations = " + std::to_string(its) + ls;
         },
         "iteration", centres_its, fixed(256.0 * (d + 1)), "M (d + 1)"},
        {"GMM diagonal k = 64",
         [&](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"gmm\"\ncount = 64\n"
                  "covariance = \"diagonal\"\ntolerance = 0.0\niterations = " +
                  std::to_string(its) + ls;
         },
         "iteration", centres_its, fixed(double(m) * (3 * d + 1) + 4), "M (3d + 1) + 4"},
        {"GMM full k = 64",
         [&](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"gmm\"\ncount = 64\n"
                  "covariance = \"full\"\ntolerance = 0.0\niterations = " +
                  std::to_string(its) + ls;
         },
         "iteration", centres_its, fixed(double(m) * (1 + d + d * (d + 1) / 2.0) + 4),
         "M (1 + d + d(d+1)/2) + 4"},
        {"DEM diagonal, 16 per class (M = 64)",
         [&](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\ndensity = true\n[centres]\nplugin = \"dem\"\n"
                  "count = 16\nem_iterations = 5\ntolerance = 0.0\niterations = " +
                  std::to_string(its) + "\n[output]\nplugin = \"bayes\"\n";
         },
         "iteration", centres_its, fixed(2.0 * m * (3 * d + 1) + 5), "2 M (3d + 1) + 5"},
        {"PRBF diagonal M = 64",
         [&](std::size_t its) {
           return "[basis]\nplugin = \"gaussian\"\ndensity = true\n[centres]\nplugin = \"prbf\"\n"
                  "count = 64\ntolerance = 0.0\niterations = " +
                  std::to_string(its) + "\n[output]\nplugin = \"bayes\"\n";
         },
         "iteration", centres_its, fixed(double(m) * (3 * d + 1) + double(m) * k * (d + 1) + 4),
         "M (3d + 1) + M K (d + 1) + 4"},
        {"IRLS softmax M = 64 (exact Hessian)",
         [&](std::size_t its) {
           return km64 + "[output]\nplugin = \"irls\"\nlink = \"softmax\"\ntolerance = 1e-300\n"
                         "iterations = " + std::to_string(its) +
                  "\n[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.001\n";
         },
         "iteration", output_its,
         // The exact softmax Hessian as K(K+1)/2 blocks of (M+1)^2, the gradient, the error,
         // flops and a row count, in one sum per iteration.
         fixed(double(k) * (k + 1) / 2 * double(m + 1) * (m + 1) + double(w) + 3),
         "K(K+1)/2 (M+1)^2 + (M+1)K + 3"},
        {"SCG softmax M = 64",
         [&](std::size_t its) {
           return km64 + "[output]\nplugin = \"scg\"\nlink = \"softmax\"\ntolerance = 1e-300\n"
                         "iterations = " + std::to_string(its) + "\n";
         },
         // Value and gradient passes are not summed: every rank gathers every row block's
         // record [E, flops, gradient] and folds them in block order (the one-process order).
         "iteration", output_its, fixed(0.0), "no sum: chain of 2 + W values per pass"},
        {"BFGS softmax M = 64",
         [&](std::size_t its) {
           return km64 + "[output]\nplugin = \"bfgs\"\nlink = \"softmax\"\ntolerance = 1e-300\n"
                         "iterations = " + std::to_string(its) + "\n";
         },
         // Value and gradient passes are not summed: every rank gathers every row block's
         // record [E, flops, gradient] and folds them in block order (the one-process order).
         "iteration", output_its, fixed(0.0), "no sum: chain of 2 + W values per pass"},
    };
    out_ << "\n  Values carried by the rank-ordered sums (rank 0, P = 2, N = " << s_.traffic_rows
         << "): difference of two runs (" << i1 << " and " << i2
         << " iterations) per iteration or per objective evaluation, against the model "
            "(M = 64 unless named, d = 16, K = 4)\n";
    out_ << "  " << std::left << std::setw(40) << "algorithm" << std::setw(11) << "per"
         << std::right << std::setw(12) << "sums" << std::setw(12) << "values" << std::setw(12)
         << "model" << std::setw(10) << "KB" << std::setw(14) << "MPI KB sent"
         << "  model formula\n";
    for (const Algorithm& a : algorithms) {
      std::cerr << "[radial-bench] traffic: " << a.name << "\n";
      const Run r1 = train_run(train, a.body(i1), 2, "traffic-a");
      const Run r2 = train_run(train, a.body(i2), 2, "traffic-b");
      const double units = a.units(r2.report) - a.units(r1.report);
      const double sums = (r2.sums - r1.sums) / units, values = (r2.values - r1.values) / units;
      const double model = a.model(r1.report, r2.report);
      out_ << "  " << std::left << std::setw(40) << a.name << std::setw(11) << a.unit
           << std::right << std::fixed << std::setprecision(1) << std::setw(12) << sums
           << std::setw(12) << values << std::setw(12) << model << std::setw(10)
           << values * 8 / 1024 << std::setw(14) << (r2.mpi_bytes[0] - r1.mpi_bytes[0]) / units / 1024
           << "  " << a.formula << std::defaultfloat << "\n";
    }
  }

  // Amdahl from the two measured rank counts, on the CPU seconds of the busiest rank for the
  // whole run (not wall time: on a shared machine the ranks wait for the cores; serial part S,
  // parallel part W: T(P) = S + W/P), plus the communication of the whole run on a network:
  // every collective call takes P - 1 steps of latency alpha (ring / pairwise algorithms), and
  // every rank sends 2 (P - 1) / P of its summed vectors (the rank-ordered sum) or of the
  // gathered records, i.e. the bytes measured at P = 2 times (P - 1) / P / (1 / 2).
  void prediction() {
    if (s_.ranks.size() < 2 || measured_.empty()) return;
    const double alpha = 20e-6, beta = 10e9 / 8;  // 10 Gb/s Ethernet, MPI over TCP
    const int p = 64, p1 = s_.ranks[0], p2 = s_.ranks[1];
    out_ << "\n  Predicted for P = 64 on a 10 Gb/s network (alpha = 20 us per step, one rank per "
            "node), N = "
         << s_.sizes.back()
         << ": T(64) = S + W/64 + communication (collectives: 63 steps, 2 x 63/64 of each "
            "vector; fold chains: 63 hops in turn; broadcasts: 6 tree steps)\n";
    out_ << "  (S and W from the busiest rank's CPU seconds of the whole run at P = " << p1
         << " and " << p2 << ")\n";
    out_ << "  " << std::left << std::setw(42) << "case" << std::right << std::setw(9) << "S s"
         << std::setw(9) << "W s" << std::setw(11) << "comm s" << std::setw(11) << "T(64) s"
         << std::setw(11) << "speed-up" << "\n";
    for (const auto& [name, by_p] : measured_) {
      if (!by_p.count(p1) || !by_p.count(p2)) continue;
      const auto& a = by_p.at(p1);
      const auto& b = by_p.at(p2);
      // T(p1) = S + W/p1, T(p2) = S + W/p2.
      double w = (a.seconds - b.seconds) / (1.0 / p1 - 1.0 / p2);
      double s = a.seconds - w / p1;
      if (s < 0) {  // faster than linear (cache effects): all of it parallel
        s = 0;
        w = a.seconds * p1;
      } else if (w < 0) {  // no faster on more ranks: all of it serial
        s = a.seconds;
        w = 0;
      }
      // Collectives (all-to-all, all-gather(v), all-reduce, gather): P - 1 steps each, 2 (P-1)/P
      // of the vector per rank. Point-to-point sends are the chains that continue one
      // process's block fold across ranks (fold_blocks_over_ranks): P - 1 hops one after
      // another, each a message of the measured size. Broadcasts (the chain's end, rank 0's
      // strings): a binomial tree of log2 P steps. Rank 0's counts, broadcasts of every rank.
      double comm = 0;
      const double steps = double(p - 1), share = (double(p - 1) / p) / (double(p2 - 1) / p2);
      for (const auto& [op, cb] : b.ops.at(0)) {
        if (op == "send") {
          comm += cb.first * steps * alpha + cb.second * steps / (p2 - 1) / beta;
        } else if (op != "bcast") {
          comm += cb.first * steps * alpha + cb.second * share / beta;
        }
      }
      for (const auto& ranks_ops : b.ops)
        if (ranks_ops.count("bcast")) {
          const auto& cb = ranks_ops.at("bcast");
          comm += cb.first * std::log2(double(p)) * alpha +
                  cb.second / (p2 - 1) * std::log2(double(p)) / beta;
        }
      const double t = s + w / p + comm;
      const double t1 = s + w;
      out_ << "  " << std::left << std::setw(42) << name << std::right << std::fixed
           << std::setprecision(2) << std::setw(9) << s << std::setw(9) << w << std::setprecision(3)
           << std::setw(11) << comm << std::setw(11) << t << std::setprecision(1) << std::setw(10)
           << t1 / t << "x" << std::defaultfloat << "\n";
    }
  }

  struct Measured {
    double seconds = 0, calls = 0, bytes = 0;  // busiest rank's CPU s; rank 0's MPI calls, bytes
    std::vector<std::map<std::string, std::pair<double, double>>> ops;  // per rank
  };
  const DistributedSettings& s_;
  std::ostream& out_;
  std::map<std::string, std::map<int, Measured>> measured_;
};

}  // namespace

void distributed_bench(const DistributedSettings& settings, std::ostream& out) {
  DistributedBench(settings, out).run();
}

}  // namespace radial::bench
