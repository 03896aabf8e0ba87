// radial-bench: Radial against scikit-learn on the same deterministic data in the same run.
//
// Each Radial measurement runs in this process through the framework (and the plugins the
// registry loads); each scikit-learn measurement runs sklearn_side.py with /usr/bin/python3 on
// .npy files written here, with the same thread count (OMP/OpenBLAS variables and
// threadpoolctl). Times are medians over repeats; ratios are Radial / scikit-learn.
#include <sys/resource.h>
#include <sys/wait.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <xtensor-blas/xblas.hpp>
#include <xtensor/xview.hpp>

#include "bench_data.hpp"
#include "child_process.hpp"
#include "distributed_bench.hpp"
#include "experiment_bench.hpp"
#include "guard.hpp"
#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/network/gram_products.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/dataset.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/glm/objective.hpp"
#include "radial/exec/blas_threads.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/core/params.hpp"
#include "radial/refine/network_objective.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/network/weight_penalty.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

struct Settings {
  std::vector<std::size_t> sizes{10'000, 100'000, 1'000'000};
  std::vector<std::size_t> dims{2, 16};
  std::vector<std::string> tasks{"kmeans", "gmm", "logistic",   "pipeline",
                                 "design", "csv", "experiment", "refine"};
  std::size_t repeats = 3;
  std::size_t iterations = 5;           // EM iterations per timed run
  std::size_t kmeans_iterations = 20;   // Lloyd iterations per timed run (bounds pay off after
                                        // the first few, so one iteration would hide them)
  std::size_t gmm_max_rows = 1'000'000; // full-covariance EM above this is skipped
  std::size_t pipeline_rows = 1'000'000;
  std::size_t design_rows = 20'000;
  std::size_t experiment_runs = 200;
  std::size_t csv_rows = 1'000'000;       // rows of the CSV reading part (d = 16 + class)
  std::size_t refine_rows = 100'000;      // N of the whole-network gradient pass (--tasks refine)
  radial::bench::DistributedSettings distributed;  // --tasks distributed (not in the default)
  // --tasks scale (not in the default): scale/scale.py's generator sizes and its FALKON runs
  // ("preset:rows:centres", e.g. susy:1000000:10000), each in the same run as its peers.
  std::string scale_sizes = "2000,5000,10000,20000,50000";
  std::vector<std::string> scale_falkon;
  fs::path experiment_data = fs::path(RADIAL_SOURCE_DIR) / "docs" / "examples" / "data";
  int threads = 0;
  fs::path work;
  fs::path python = "/usr/bin/python3";
  bool keep = false;
  fs::path guard;           // --guard: compare the headline ratios with this baseline
  fs::path write_baseline;  // --write-baseline: store the headline ratios here
  double guard_factor = 2.0;
  std::size_t guard_rounds = 3;
};

using radial::bench::Ratios;

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

template <class F>
std::vector<double> time_runs(std::size_t repeats, F&& f) {
  std::vector<double> t;
  for (std::size_t r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    f();
    t.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return t;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

fs::path self_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

// A child process with the thread variables set; its stdout to a file. Returns exit status,
// wall seconds and peak resident memory (bytes) from wait4's rusage.
struct ChildRun {
  int status = -1;
  double seconds = 0;
  double peak_bytes = 0;
  std::string out;
};

ChildRun run_child(const std::vector<std::string>& argv, int threads, const fs::path& out_file,
                   const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> set = extra_env;
  for (const char* var : {"OMP_NUM_THREADS=", "OPENBLAS_NUM_THREADS=", "MKL_NUM_THREADS="})
    set.push_back(var + std::to_string(threads));
  std::vector<std::string> env_store = radial::bench::environment_with(set), argv_store = argv;
  std::vector<char*> envp = radial::bench::c_strings(env_store),
                     args = radial::bench::c_strings(argv_store);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  ChildRun run;
  pid_t pid = 0;
  const auto start = Clock::now();
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw radial::Error("radial-bench: cannot start " + argv[0]);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.peak_bytes = double(usage.ru_maxrss) * 1024.0;
  std::ifstream in(out_file);
  std::stringstream ss;
  ss << in.rdbuf();
  run.out = ss.str();
  return run;
}

class Bench {
 public:
  explicit Bench(Settings s) : s_(std::move(s)), threads_(radial::resolve_threads(s_.threads)) {
    registry_.load_default();
    fs::create_directories(s_.work);
    script_ = self_dir() / "sklearn_side.py";
    if (!fs::exists(script_))
      throw radial::Error("radial-bench: " + script_.string() +
                          " is missing; build the radial-bench target (it copies the script)");
  }

  // The headline ratios of the last run(), keyed as in baseline.json.
  Ratios ratios() const {
    Ratios out;
    for (const auto* rows : {&kmeans_, &gmm_, &logistic_, &headline_})
      for (const Row& r : *rows)
        if (!r.key.empty()) out[r.key] = r.radial / r.sklearn;
    return out;
  }

  void run() {
    std::cout << "radial-bench: threads = " << threads_ << " on both sides, medians of "
              << s_.repeats << " runs, work folder " << s_.work << "\n"
              << radial::bench::machine_lines();
    const bool any_grid = wants("kmeans") || wants("gmm") || wants("logistic");
    if (any_grid)
      for (std::size_t d : s_.dims)
        for (std::size_t n : s_.sizes) grid_point(n, d);
    print_rows("k-means: Lloyd iteration, mean over " + std::to_string(s_.kmeans_iterations) +
                   " iterations from the same initial centres (s per iteration)",
               kmeans_);
    print_rows("GMM: one EM iteration (same initial parameters; s per iteration)", gmm_);
    print_rows("softmax output on a fixed design matrix (M = 64, same penalty; s per fit)",
               logistic_);
    if (wants("pipeline")) pipeline();
    if (wants("design")) design_fraction();
    if (wants("csv")) csv_reading();
    if (wants("refine")) refine_pass();
    if (wants("experiment"))
      radial::bench::experiment_bench(registry_, s_.experiment_data, s_.work, s_.experiment_runs,
                                      s_.repeats, std::cout);
    if (wants("distributed")) {
      radial::bench::DistributedSettings d = s_.distributed;
      d.radial = self_dir() / "radial";
      d.make_data = fs::path(RADIAL_SOURCE_DIR) / "apps" / "radial-bench" / "memory" / "make_data.py";
      d.python = s_.python;
      d.work = s_.work / "distributed";
#ifdef RADIAL_MPI_TRAFFIC_LIB
      d.traffic_lib = RADIAL_MPI_TRAFFIC_LIB;
#else
      throw radial::Error("radial-bench: the distributed part needs a build with RADIAL_WITH_MPI");
#endif
      d.repeats = s_.repeats;
      radial::bench::distributed_bench(d, std::cout);
    }
    if (wants("scale")) scale();
    if (!s_.keep) fs::remove_all(s_.work);
  }

 private:
  struct Row {
    std::string label;
    double radial = 0, sklearn = 0;
    std::string note;
    std::string key;  // the guard's name for the ratio (see ratios())
  };

  // Training at scale (issue 45): scale/scale.py with the build's Python module, its tables
  // printed as they come. Each of its comparisons is measured within one run.
  void scale() {
    const fs::path script = fs::path(RADIAL_SOURCE_DIR) / "apps" / "radial-bench" / "scale" / "scale.py";
    const std::string path = "PYTHONPATH=" + (self_dir().parent_path() / "python").string();
    std::vector<std::vector<std::string>> runs{{"generator", "--sizes", s_.scale_sizes}, {"sets"}};
    for (const std::string& spec : s_.scale_falkon) {
      const auto a = spec.find(':'), b = spec.rfind(':');
      if (a == std::string::npos || a == b)
        throw radial::Error("radial-bench: --scale-falkon '" + spec +
                            "': give preset:rows:centres, e.g. susy:1000000:10000");
      runs.push_back({"falkon", "--preset", spec.substr(0, a), "--n-train",
                      spec.substr(a + 1, b - a - 1), "--M", spec.substr(b + 1), "--data-dir",
                      (s_.work / "falkon").string()});
    }
    for (const auto& run : runs) {
      std::vector<std::string> argv{s_.python.string(), script.string()};
      argv.insert(argv.end(), run.begin(), run.end());
      const ChildRun r = run_child(argv, threads_, s_.work / "scale.out", {path});
      std::cout << "\nTraining at scale: scale.py " << run.front() << " (" << r.seconds
                << " s)\n" << r.out;
      if (r.status != 0)
        throw radial::Error("radial-bench: scale.py " + run.front() + " failed (exit " +
                            std::to_string(r.status) + ")");
    }
  }

  bool wants(const std::string& t) const {
    return std::find(s_.tasks.begin(), s_.tasks.end(), t) != s_.tasks.end();
  }

  json sklearn(const std::vector<std::string>& args) {
    std::vector<std::string> argv{s_.python.string(), script_.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--threads");
    argv.push_back(std::to_string(threads_));
    const ChildRun r = run_child(argv, threads_, s_.work / "sklearn.json");
    if (r.status != 0)
      throw radial::Error("radial-bench: sklearn_side.py " + args.front() + " failed (exit " +
                          std::to_string(r.status) + "); run it by hand to see why");
    json j = json::parse(r.out);
    j["peak_bytes"] = r.peak_bytes;
    return j;
  }

  static std::vector<double> times_of(const json& j) {
    return j.at("times").get<std::vector<double>>();
  }

  void grid_point(std::size_t n, std::size_t d) {
    const auto data = radial::bench::gaussian_mixture(n, d, 4, 1000 + d);
    const fs::path x_file = s_.work / "x.npy";
    radial::bench::write_npy(x_file, data.x);
    const std::string at = "N=" + std::to_string(n) + " d=" + std::to_string(d);
    std::cerr << "[radial-bench] " << at << "\n";

    if (wants("kmeans"))
      for (std::size_t k : {std::size_t(64), std::size_t(256)}) {
        if (k > n) continue;
        // The same initial centres on both sides: the first k rows (the rows are i.i.d.).
        radial::Matrix init = xt::view(data.x, xt::range(0, k), xt::all());
        radial::bench::write_npy(s_.work / "init.npy", init);
        radial::KMeansOptions opt;
        opt.count = k;
        opt.iterations = s_.kmeans_iterations;
        opt.tolerance = 0;
        opt.threads = threads_;
        std::size_t its = 0;
        double inertia = 0;
        const auto t = time_runs(s_.repeats, [&] {
          const auto result = radial::kmeans_lloyd(data.x, init, opt);
          its = result.iterations;
          inertia = result.inertia;
        });
        const json sk = sklearn({"kmeans", "--x", x_file.string(), "--init",
                                 (s_.work / "init.npy").string(), "--iterations",
                                 std::to_string(s_.kmeans_iterations), "--repeats",
                                 std::to_string(s_.repeats)});
        const double sk_its = std::max(1.0, sk.at("iterations").get<double>());
        // Same start, same Lloyd partitions: the final errors agree to rounding.
        const double sk_inertia = sk.at("inertia").get<double>();
        std::ostringstream note;
        note << std::setprecision(2) << int(its) << " / " << int(sk_its)
             << " iterations, inertia rel diff "
             << std::abs(inertia - sk_inertia) / std::max(1e-300, std::abs(sk_inertia));
        kmeans_.push_back({at + " k=" + std::to_string(k), median(t) / double(its),
                           median(times_of(sk)) / sk_its, note.str(),
                           "kmeans N=" + std::to_string(n) + " d=" + std::to_string(d) +
                               " k=" + std::to_string(k)});
      }

    if (wants("gmm"))
      for (const char* cov : {"diag", "full"}) {
        const bool full = std::string(cov) == "full";
        const std::size_t k = 64;
        if (k > n || (full && n > s_.gmm_max_rows)) continue;
        radial::Centres c;
        c.means = xt::view(data.x, xt::range(0, k), xt::all());
        radial::Vector var = xt::zeros<double>({d});
        for (std::size_t j = 0; j < d; ++j) {
          double m = 0, v = 0;
          for (std::size_t i = 0; i < n; ++i) m += data.x(i, j);
          m /= double(n);
          for (std::size_t i = 0; i < n; ++i) v += (data.x(i, j) - m) * (data.x(i, j) - m);
          var(j) = v / double(n);
        }
        if (full) {
          c.shape = radial::Shape::Full;
          c.covariances = xt::zeros<double>({k, d, d});
          for (std::size_t j = 0; j < k; ++j)
            for (std::size_t a = 0; a < d; ++a) c.covariances(j, a, a) = var(a);
          radial::bench::write_npy(s_.work / "cov.npy", c.covariances);
        } else {
          c.shape = radial::Shape::Diagonal;
          c.diagonal = xt::empty<double>({k, d});
          for (std::size_t j = 0; j < k; ++j)
            for (std::size_t a = 0; a < d; ++a) c.diagonal(j, a) = var(a);
          radial::bench::write_npy(s_.work / "cov.npy", c.diagonal);
        }
        radial::Vector w = xt::ones<double>({k}) / double(k);
        radial::bench::write_npy(s_.work / "means.npy", c.means);
        radial::bench::write_npy(s_.work / "weights.npy", w);
        radial::EmOptions opt;
        opt.shape = c.shape;
        opt.iterations = s_.iterations;
        opt.tolerance = 0;
        opt.threads = threads_;
        std::size_t its = 0;
        const auto t = time_runs(s_.repeats, [&] {
          its = std::max<std::size_t>(1, radial::em_mixture(data.x, c, w, opt).iterations);
        });
        const json sk = sklearn({"gmm", "--x", x_file.string(), "--means",
                                 (s_.work / "means.npy").string(), "--weights",
                                 (s_.work / "weights.npy").string(), "--covariances",
                                 (s_.work / "cov.npy").string(), "--covariance", cov,
                                 "--iterations", std::to_string(s_.iterations), "--repeats",
                                 std::to_string(s_.repeats)});
        const double sk_its = std::max(1.0, sk.at("iterations").get<double>());
        gmm_.push_back({at + " k=64 " + cov, median(t) / double(its),
                        median(times_of(sk)) / sk_its, "",
                        std::string("gmm ") + cov + " N=" + std::to_string(n) +
                            " d=" + std::to_string(d) + " k=64"});
      }

    if (wants("logistic") && n >= 64) logistic(data, at);
  }

  // The gaussian basis plugin with width sigma, prepared on `centres`.
  std::shared_ptr<radial::Basis> prepared_gaussian(radial::Centres& centres, double sigma) {
    auto basis = registry_.make_basis(
        "gaussian", radial::validate_params(registry_.require(radial::Slot::Basis, "gaussian").params,
                                            {{"width", sigma}}, "radial-bench"));
    radial::FitContext ctx(1, threads_);
    basis->prepare(centres, ctx);
    return basis;
  }

  // Softmax output weights on Phi from 64 fixed centres (the first rows) and a Gaussian basis of
  // width sqrt(d); penalty alpha = 1e-2 (scikit-learn C = 1 / alpha, intercept unpenalised).
  void logistic(const radial::bench::MixtureData& data, const std::string& at) {
    const std::size_t n = data.x.shape(0), d = data.x.shape(1), m = 64;
    const double alpha = 1e-2;
    radial::Centres centres;
    centres.means = xt::view(data.x, xt::range(0, m), xt::all());
    auto basis = prepared_gaussian(centres, std::sqrt(double(d)));
    radial::Dataset ds;
    ds.inputs = data.x;
    ds.classes = data.classes;
    ds.num_classes = 4;
    ds.class_values = {0, 1, 2, 3};
    // Cache Phi after the first pass: the comparison is of the optimisers on a fixed matrix.
    radial::DesignMatrix design(ds.inputs, centres, *basis, false,
                                std::size_t(double(n) * double(m + 1) * 8 * 1.01) + 1024);
    design.set_threads(threads_);  // as the trainer does: the output passes run on these workers
    const radial::Matrix phi = design.materialise();
    radial::Matrix phi_m = xt::view(phi, xt::all(), xt::range(0, m));
    radial::bench::write_npy(s_.work / "phi.npy", phi_m);
    radial::Vector y = xt::cast<double>(data.classes);
    radial::bench::write_npy(s_.work / "y.npy", y);

    auto penalty = registry_.make_weight_penalty(
        "weight-decay",
        radial::validate_params(registry_.require(radial::Slot::WeightPenalty, "weight-decay").params,
                                {{"alpha", alpha}}, "radial-bench"));
    auto irls = registry_.make_output_layer(
        "irls", radial::validate_params(
                    registry_.require(radial::Slot::Output, "irls").params,
                    {{"link", std::string("softmax")}, {"tolerance", 1e-9},
                     {"iterations", std::int64_t(100)}},
                    "radial-bench"));
    radial::TrainingProblem problem{design, ds, centres, *basis};
    radial::OutputWeights fitted;
    const auto t = time_runs(s_.repeats, [&] {
      radial::FitContext ctx(1, threads_);
      fitted = irls->fit(problem, penalty.get(), ctx);
    });
    radial::glm::Objective objective(design, radial::targets_for(radial::Link::Softmax, ds),
                                     radial::Link::Softmax, penalty.get());
    const double radial_loss = objective.value(fitted.weights);
    for (const char* solver : {"lbfgs", "newton-cg"}) {
      const json sk = sklearn({"logistic", "--phi", (s_.work / "phi.npy").string(), "--y",
                               (s_.work / "y.npy").string(), "--C", std::to_string(1 / alpha),
                               "--solver", solver, "--repeats", std::to_string(s_.repeats)});
      const double sk_loss = sk.at("loss").get<double>();
      std::ostringstream note;
      note << std::setprecision(10) << "loss " << radial_loss << " vs " << sk_loss
           << std::setprecision(2) << " (rel diff " << std::fabs(radial_loss - sk_loss) / sk_loss
           << ")";
      logistic_.push_back({at + " irls vs " + solver, median(t), median(times_of(sk)),
                           note.str(),
                           "irls vs " + std::string(solver) + " N=" + std::to_string(n) +
                               " d=" + std::to_string(data.x.shape(1))});
    }
  }

  // The whole pipeline through the host (`radial train`) and through scikit-learn, each in a
  // child process so that wall time and peak memory are measured the same way.
  void pipeline() {
    const std::size_t n = s_.pipeline_rows, d = 16, test_rows = std::min<std::size_t>(n, 100'000);
    std::cerr << "[radial-bench] pipeline N=" << n << "\n";
    {
      // Training and test rows from one stream: the test rows are the next test_rows draws.
      const auto all = radial::bench::gaussian_mixture(n + test_rows, d, 4, 2000 + d);
      radial::bench::MixtureData part;
      part.x = xt::view(all.x, xt::range(0, n), xt::all());
      part.classes = xt::view(all.classes, xt::range(0, n));
      radial::bench::write_labelled_npy(s_.work / "train.npy", part);
      part.x = xt::view(all.x, xt::range(n, n + test_rows), xt::all());
      part.classes = xt::view(all.classes, xt::range(n, n + test_rows));
      radial::bench::write_labelled_npy(s_.work / "test.npy", part);
    }
    const double alpha = 1e-3;
    // One Gaussian width sigma on both sides (standardised inputs): sqrt(d) = 4.
    const double width = 4.0;
    std::ofstream(s_.work / "pipeline.toml")
        << "name = \"bench pipeline\"\nseed = 1\n[data]\ntrain = \"train.npy\"\n"
        << "test = \"test.npy\"\nstandardize = true\n[basis]\nplugin = \"gaussian\"\n"
        << "width = " << width << "\n"
        << "[centres]\nplugin = \"kmeans\"\ncount = 64\n[output]\nplugin = \"irls\"\n"
        << "link = \"softmax\"\n[weight-penalty]\nplugin = \"weight-decay\"\nalpha = " << alpha
        << "\n";
    const fs::path host = self_dir() / "radial";
    std::vector<double> r_t, r_mem, r_err;
    for (std::size_t r = 0; r < s_.repeats; ++r) {
      const ChildRun run = run_child({host.string(), "train", (s_.work / "pipeline.toml").string(),
                                      "--threads", std::to_string(threads_), "--quiet",
                                      "--report", (s_.work / "report.json").string()},
                                     threads_, s_.work / "radial.out");
      if (run.status != 0)
        throw radial::Error("radial-bench: `radial train` failed (exit " +
                            std::to_string(run.status) + ") on " +
                            (s_.work / "pipeline.toml").string());
      std::ifstream in(s_.work / "report.json");
      const json report = json::parse(in);
      r_t.push_back(run.seconds);
      r_mem.push_back(run.peak_bytes);
      r_err.push_back(report.at("test").at("error_rate").get<double>());
    }
    std::vector<double> s_t, s_mem, s_err;
    for (std::size_t r = 0; r < s_.repeats; ++r) {
      const json sk = sklearn({"pipeline", "--train", (s_.work / "train.npy").string(), "--test",
                               (s_.work / "test.npy").string(), "--C",
                               std::to_string(1 / alpha), "--width", std::to_string(width),
                               "--repeats", "1"});
      s_t.push_back(sk.at("times").at(0).get<double>());
      s_mem.push_back(sk.at("peak_bytes").get<double>());
      s_err.push_back(sk.at("test_error").get<double>());
    }
    const double data_mb = double(n) * double(d + 1) * 8 / 1e6;
    std::cout << "\nWhole pipeline: k-means (M = 64) -> Gaussian basis -> softmax output, N = " << n
              << ", d = 16, test rows = " << test_rows << " (training data file " << std::fixed
              << std::setprecision(0) << data_mb << " MB)\n"
              << std::setprecision(3);
    std::cout << "  " << std::left << std::setw(14) << "" << std::right << std::setw(12)
              << "wall s" << std::setw(14) << "peak RSS MB" << std::setw(12) << "test error\n";
    std::cout << "  " << std::left << std::setw(14) << "radial" << std::right << std::setw(12)
              << median(r_t) << std::setw(14) << std::setprecision(0) << median(r_mem) / 1e6
              << std::setw(12) << std::setprecision(4) << median(r_err) << "\n";
    std::cout << "  " << std::left << std::setw(14) << "scikit-learn" << std::right
              << std::setw(12) << std::setprecision(3) << median(s_t) << std::setw(14)
              << std::setprecision(0) << median(s_mem) / 1e6 << std::setw(12)
              << std::setprecision(4) << median(s_err) << "\n";
    headline_.push_back({"pipeline", median(r_t), median(s_t), "",
                         "pipeline N=" + std::to_string(n) + " wall"});
    std::cout << "  ratio radial/scikit-learn: wall " << std::setprecision(3)
              << median(r_t) / median(s_t) << ", peak memory " << median(r_mem) / median(s_mem)
              << "\n" << std::defaultfloat;
  }

  // Fraction of this machine's dgemm rate reached by the design matrix (distances + Gaussian
  // map) with Phi^T Phi accumulated block by block (syrk), for M = 1024, d = 64.
  void design_fraction() {
    const std::size_t n = s_.design_rows, d = 64, m = 1024;
    std::cerr << "[radial-bench] design matrix + Phi^T Phi, N=" << n << "\n";
    auto data = radial::bench::gaussian_mixture(n, d, 4, 3000);
    radial::Centres centres;
    centres.means = xt::view(data.x, xt::range(0, m), xt::all());
    auto basis = prepared_gaussian(centres, std::sqrt(double(d)));
    const std::size_t c = m + 1;
    radial::DesignMatrix design(data.x, centres, *basis, false, 0);  // never cached: streamed
    design.set_threads(threads_);
    // The framework's pass (the least-squares output's and the closed-form selection's), with
    // one target column (its Phi^T t, 2 N C flops, not counted).
    const radial::Matrix ones = xt::ones<double>({n, std::size_t(1)});
    radial::GramProducts products;
    const auto pass = [&] { products = radial::gram_products(design, ones, {}); };
    // Useful flops: the cross products x.c (2 N M d) and the upper triangle of Phi^T Phi
    // (N C (C + 1)); the exp and the distance assembly are counted as free.
    const double flops = 2.0 * double(n) * double(m) * double(d) + double(n) * double(c) * double(c + 1);

    // dgemm rate: square products on all threads (BLAS threads = our thread count).
    const std::size_t g = 1536;
    radial::Matrix A = xt::empty<double>({g, g}), B = xt::empty<double>({g, g}),
                   C = xt::empty<double>({g, g});
    for (std::size_t i = 0; i < g * g; ++i) {
      A.data()[i] = double(i % 97) / 97.0;
      B.data()[i] = double(i % 89) / 89.0;
    }
    const auto gemm = [&] {
      const int saved = radial::blas_threads();
      radial::set_blas_threads(threads_);
      cxxblas::gemm<xt::blas_index_t>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans,
                                      xt::blas_index_t(g), xt::blas_index_t(g),
                                      xt::blas_index_t(g), 1.0, A.data(), xt::blas_index_t(g),
                                      B.data(), xt::blas_index_t(g), 0.0, C.data(),
                                      xt::blas_index_t(g));
      radial::set_blas_threads(saved);
    };
    // The pass and dgemm alternate, and each pair gives one ratio: this machine's speed drifts
    // by a fifth between runs, which separate series of each turned into the fraction.
    std::vector<double> t, tg, pair_ratio;
    for (std::size_t r = 0; r < std::max<std::size_t>(1, s_.repeats); ++r) {
      t.push_back(time_runs(1, pass)[0]);
      tg.push_back(time_runs(1, gemm)[0]);
      pair_ratio.push_back(t.back() / flops / (tg.back() / (2.0 * double(g) * double(g) * double(g))));
    }
    const double pass_rate = flops / median(t);
    const double gemm_rate = 2.0 * double(g) * double(g) * double(g) / median(tg);
    const double ratio = median(pair_ratio);  // pass time over dgemm's for the same flops
    // As a time ratio (lower is better): dgemm's rate over the pass's, pair by pair.
    headline_.push_back({"design", ratio, 1.0, "", "design N=" + std::to_string(n) + " dgemm/pass"});
    std::cout << "\nDesign matrix + Phi^T Phi (syrk), M = 1024, d = 64, N = " << n
              << ", streamed in blocks of " << radial::parallel_block_rows << " rows\n"
              << std::fixed << std::setprecision(1) << "  pass: " << median(t) << " s  "
              << pass_rate / 1e9 << " GFLOP/s;  dgemm (" << g << "^3, " << threads_
              << " threads): " << gemm_rate / 1e9 << " GFLOP/s;  fraction (median of "
              << pair_ratio.size() << " alternating pairs) " << std::setprecision(0)
              << 100.0 / ratio << "%\n"
              << std::defaultfloat;
  }

  // One value-and-gradient evaluation of the whole network (issue 27): centres, one log width
  // per centre and input, linear weights, 1/2 SSE + weight decay, at N = refine_rows, d = 10,
  // M = 32 Gaussians, against one value-and-gradient pass of the design (the weights alone) and
  // against the NumPy reference of the same objective (refine/reference.py) at the same network.
  void refine_pass() {
    const std::size_t n = s_.refine_rows, d = 10, m = 32, evaluations = 5;
    const double alpha = 1e-3;
    std::cerr << "[radial-bench] whole-network gradient, N=" << n << "\n";
    const auto data = radial::bench::gaussian_mixture(n, d, 4, 5000);
    radial::Matrix t = xt::empty<double>({n, std::size_t(1)});
    for (std::size_t i = 0; i < n; ++i) {  // friedman1's target on these inputs
      const double* x = &data.x(i, 0);
      t(i, 0) = 10 * std::sin(3.14159 * x[0] * x[1]) + 20 * (x[2] - 0.5) * (x[2] - 0.5) +
                10 * x[3] + 5 * x[4];
    }
    radial::Centres centres;
    centres.means = xt::view(data.x, xt::range(0, m), xt::all());
    auto basis = prepared_gaussian(centres, std::sqrt(double(d)));
    radial::Matrix w = xt::empty<double>({m + 1, std::size_t(1)});
    for (std::size_t j = 0; j <= m; ++j) w(j, 0) = std::sin(double(j + 1));
    const auto penalty = registry_.make_weight_penalty(
        "weight-decay",
        radial::validate_params(registry_.require(radial::Slot::WeightPenalty, "weight-decay").params,
                                {{"alpha", alpha}}, "radial-bench"));
    const auto per_evaluation = [&](bool whole, double& value) {
      radial::refine::NetworkOptions options;
      options.centres = whole;
      options.widths = whole ? radial::refine::WidthMode::Diagonal : radial::refine::WidthMode::None;
      options.threads = threads_;
      radial::refine::NetworkObjective objective(data.x, t, radial::Link::Identity, *basis, centres,
                                                 w, penalty.get(), options);
      const radial::Vector theta = objective.start();
      radial::Vector g;
      std::vector<double> cpu;
      const auto wall = time_runs(s_.repeats, [&] {
        const double start = process_cpu_seconds();
        for (std::size_t e = 0; e < evaluations; ++e) value = objective.gradient(theta, g);
        cpu.push_back(process_cpu_seconds() - start);
      });
      return std::make_pair(median(wall) / double(evaluations), median(cpu) / double(evaluations));
    };
    double value = 0, weights_value = 0;
    const auto [whole, whole_cpu] = per_evaluation(true, value);
    const auto [weights_only, weights_cpu] = per_evaluation(false, weights_value);

    radial::Matrix variances = xt::empty<double>({m, d});
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t a = 0; a < d; ++a) variances(j, a) = centres.variances(j);
    radial::bench::write_npy(s_.work / "refine_x.npy", data.x);
    radial::bench::write_npy(s_.work / "refine_t.npy", t);
    radial::bench::write_npy(s_.work / "refine_means.npy", centres.means);
    radial::bench::write_npy(s_.work / "refine_variances.npy", variances);
    radial::bench::write_npy(s_.work / "refine_weights.npy", w);
    const auto str = [](double v) {
      std::ostringstream o;
      o << std::setprecision(17) << v;
      return o.str();
    };
    const json sk = sklearn({"refine", "--x", (s_.work / "refine_x.npy").string(), "--y",
                             (s_.work / "refine_t.npy").string(), "--means",
                             (s_.work / "refine_means.npy").string(), "--covariances",
                             (s_.work / "refine_variances.npy").string(), "--weights",
                             (s_.work / "refine_weights.npy").string(), "--alpha", str(alpha),
                             "--iterations", std::to_string(evaluations), "--repeats",
                             std::to_string(s_.repeats)});
    const double reference = median(times_of(sk));
    const double reference_cpu = median(sk.at("cpu_times").get<std::vector<double>>());
    const double sk_value = sk.at("value").get<double>();
    // Both sides run on one thread by default: CPU seconds then hold the ratios steady on a
    // busy machine, where wall seconds follow the other load.
    std::cout << "\nWhole-network training: one value-and-gradient evaluation, N = " << n
              << ", d = 10, M = 32 Gaussians, centres + diagonal log widths + weights ("
              << threads_ << " threads on both sides)\n"
              << std::scientific << std::setprecision(3) << "  wall s: radial whole network "
              << whole << ", radial weights only (one pass of the design) " << weights_only
              << ", NumPy reference " << reference << "\n  CPU s:  radial whole network "
              << whole_cpu << ", radial weights only " << weights_cpu << ", NumPy reference "
              << reference_cpu << "\n"
              << std::fixed << std::setprecision(2) << "  whole / weights only: wall "
              << whole / weights_only << ", CPU " << whole_cpu / weights_cpu
              << " (goal <= 2);  NumPy reference / radial: wall " << reference / whole << ", CPU "
              << reference_cpu / whole_cpu << " (goal >= 5);  value rel diff " << std::scientific
              << std::setprecision(1) << std::abs(value - sk_value) / std::abs(sk_value) << "\n"
              << std::defaultfloat;
  }

  // Reading a CSV of csv_rows x 17 (16 inputs with 6 decimals, an integer class), about 155
  // bytes a row, as `radial train` reads it: in a child process (this program with --read-csv)
  // so that its peak memory is its own; against the data's size in memory and the time to
  // read the file's bytes alone (the page cache's copy rate, measured in the same child).
  void csv_reading() {
    const std::size_t n = s_.csv_rows, d = 16;
    std::cerr << "[radial-bench] CSV reading, N=" << n << "\n";
    const auto data = radial::bench::gaussian_mixture(n, d, 4, 4000 + d);
    const fs::path file = s_.work / "read.csv";
    {
      std::ofstream out(file);
      for (std::size_t j = 0; j < d; ++j) out << "x" << j << ",";
      out << "class\n";
      char cell[32];
      std::string line;
      for (std::size_t i = 0; i < n; ++i) {
        line.clear();
        for (std::size_t j = 0; j < d; ++j) {
          std::snprintf(cell, sizeof cell, "%.6f,", data.x(i, j));
          line += cell;
        }
        line += std::to_string(data.classes(i));
        line += '\n';
        out << line;
      }
    }
    const double file_mb = double(fs::file_size(file)) / 1e6;
    const double data_mb = double(n) * double(d + 1) * 8 / 1e6;
    // One thread, then the run's threads (a large file is parsed in parts at once), alternating.
    const std::vector<int> counts = threads_ > 1 ? std::vector<int>{1, threads_}
                                                 : std::vector<int>{1};
    std::vector<std::vector<double>> secs(counts.size()), copy_secs(counts.size()),
        peaks(counts.size());
    for (std::size_t r = 0; r < s_.repeats; ++r)
      for (std::size_t c = 0; c < counts.size(); ++c) {
        const ChildRun run =
            run_child({(self_dir() / "radial-bench").string(), "--read-csv", file.string(),
                       "--read-threads", std::to_string(counts[c])},
                      1, s_.work / "read.out");
        if (run.status != 0)
          throw radial::Error("radial-bench: reading the CSV failed: " + run.out);
        std::istringstream in(run.out);
        double seconds = 0, copy = 0;
        in >> seconds >> copy;
        secs[c].push_back(seconds);
        copy_secs[c].push_back(copy);
        peaks[c].push_back(run.peak_bytes / 1e6);
      }
    std::cout << "\nCSV reading: " << n << " x " << d + 1 << ", " << std::fixed
              << std::setprecision(0) << file_mb << " MB file, " << data_mb
              << " MB of doubles (radial::read_dataset in a child process, median of "
              << s_.repeats << ")\n";
    for (std::size_t c = 0; c < counts.size(); ++c)
      std::cout << "  read, " << counts[c] << (counts[c] == 1 ? " thread:  " : " threads: ")
                << std::setprecision(3) << median(secs[c]) << " s, " << std::setprecision(0)
                << file_mb / median(secs[c]) << " MB/s (the file's bytes alone: "
                << file_mb / median(copy_secs[c]) << " MB/s); peak RSS " << median(peaks[c])
                << " MB = the data + " << median(peaks[c]) - data_mb << " MB\n";
    std::cout << std::defaultfloat;
  }

  void print_rows(const std::string& title, const std::vector<Row>& rows) const {
    if (rows.empty()) return;
    std::cout << "\n" << title << "\n";
    std::cout << "  " << std::left << std::setw(30) << "case" << std::right << std::setw(11)
              << "radial" << std::setw(13) << "scikit-learn" << std::setw(8) << "ratio"
              << "  note\n";
    for (const Row& r : rows)
      std::cout << "  " << std::left << std::setw(30) << r.label << std::right << std::fixed
                << std::setprecision(4) << std::setw(11) << r.radial << std::setw(13)
                << r.sklearn << std::setprecision(3) << std::setw(8) << r.radial / r.sklearn
                << "  " << r.note << std::defaultfloat << "\n";
  }

  Settings s_;
  int threads_;
  radial::Registry registry_;
  fs::path script_;
  std::vector<Row> kmeans_, gmm_, logistic_, headline_;
};

// The child of the csv part (--read-csv): prints the seconds of read_dataset and of reading
// the file's bytes alone.
int read_csv_child(const std::string& file, int threads) {
  try {
    const auto start = Clock::now();
    radial::DataOptions options;
    options.threads = threads;
    const radial::Dataset data = radial::read_dataset(file, options);
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    std::vector<char> buffer(std::size_t(1) << 20);
    std::ifstream in(file, std::ios::binary);
    const auto copy_start = Clock::now();
    while (in.read(buffer.data(), std::streamsize(buffer.size())) || in.gcount() > 0) {
    }
    const double copy = std::chrono::duration<double>(Clock::now() - copy_start).count();
    std::cout << seconds << " " << copy << " " << data.rows() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cout << e.what() << "\n";
    return 1;
  }
}

// The guard's sizes: every headline ratio at d = 16 in about a minute per round, one thread on
// both sides unless --threads says otherwise.
void guard_settings(Settings& s, bool threads_given) {
  s.sizes = {20'000};
  s.dims = {16};
  s.tasks = {"kmeans", "gmm", "logistic", "pipeline", "design"};
  s.repeats = 3;
  s.iterations = 3;
  s.kmeans_iterations = 10;
  s.pipeline_rows = 20'000;
  s.design_rows = 4'096;
  if (!threads_given) s.threads = 1;
}

// --quick: the small version the CTest 'bench' run uses.
void quick_settings(Settings& s) {
  s.sizes = {10'000};
  s.repeats = 1;
  s.iterations = 2;
  s.kmeans_iterations = 5;
  s.pipeline_rows = 10'000;
  s.design_rows = 2'048;
  s.experiment_runs = 40;
  s.csv_rows = 20'000;
  s.refine_rows = 10'000;
}

// --guard / --write-baseline: the headline ratios measured in rounds (the best of each kept)
// until they pass or the rounds run out; 1 when the guard fails.
int run_guard(const Settings& s) {
  std::ostringstream settings;
  settings << "N = 20000, d = 16, threads = " << radial::resolve_threads(s.threads)
           << ", medians of 3 runs per round";
  const std::string kernels = radial::bench::kernel_set();
  const radial::bench::Baseline baseline =
      s.guard.empty() ? radial::bench::Baseline{}
                      : radial::bench::read_baseline(s.guard, kernels);
  if (!s.guard.empty() && !baseline.found && s.write_baseline.empty()) {
    // Ratios measured with other kernels say nothing about these: nothing to compare.
    std::cout << "radial-bench: " << s.guard.string() << " has no ratios for this machine's "
              << "kernel set \"" << kernels << "\" (it has:";
    for (const auto& set : baseline.other_sets) std::cout << " \"" << set << "\"";
    std::cout << "); nothing checked. Measure them on this machine with --write-baseline "
              << s.guard.string() << "\n";
    return 0;
  }
  Ratios best;
  std::size_t rounds = 0;
  do {
    Bench bench(s);
    bench.run();
    radial::bench::keep_best(best, bench.ratios());
    ++rounds;
  } while (!s.guard.empty() && rounds < s.guard_rounds &&
           !radial::bench::guard_failures(baseline, best).empty());
  if (!s.write_baseline.empty()) {
    radial::bench::write_baseline(s.write_baseline, kernels, best, s.guard_factor,
                                  radial::bench::machine_lines(), settings.str());
    std::cout << "\nradial-bench: wrote " << best.size() << " ratios to " << s.write_baseline
              << "\n";
  }
  if (!s.guard.empty()) {
    radial::bench::print_guard(std::cout, baseline, best, rounds);
    const auto failed = radial::bench::guard_failures(baseline, best);
    if (!failed.empty()) {
      std::cout << "radial-bench: guard FAILED: " << failed.size()
                << " ratio(s) more than " << baseline.factor << " x the baseline in "
                << rounds << " round(s)\n";
      return 1;
    }
    std::cout << "radial-bench: guard passed\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  s.work = fs::temp_directory_path() / ("radial-bench-" + std::to_string(getpid()));
  bool quick = false;
  CLI::App app{"radial-bench: Radial against scikit-learn on the same data, same threads"};
  app.add_flag("--quick", quick, "small version (N = 10^4, 1 repeat): the CTest 'bench' run");
  app.add_option("--sizes", s.sizes, "row counts N of the k-means / GMM / output grid");
  app.add_option("--dims", s.dims, "dimensions d of the grid");
  app.add_option("--tasks", s.tasks,
                 "any of kmeans gmm logistic pipeline design csv experiment refine, and distributed "
                 "(not in the default: mpirun, N up to 10^7) and scale (not in the default: "
                 "scale/scale.py against SVC, Nystroem and the FALKON reference)");
  app.add_option("--scale-sizes", s.scale_sizes,
                 "training rows of the scale part's generator, comma-separated");
  app.add_option("--scale-falkon", s.scale_falkon,
                 "the scale part's FALKON comparisons, preset:rows:centres (susy:1000000:10000)");
  app.add_option("--repeats", s.repeats, "runs per measurement (the median is shown)");
  app.add_option("--iterations", s.iterations, "EM iterations per timed run");
  app.add_option("--kmeans-iterations", s.kmeans_iterations, "Lloyd iterations per timed run");
  app.add_option("--gmm-full-max-rows", s.gmm_max_rows, "skip full-covariance EM above this N");
  app.add_option("--pipeline-rows", s.pipeline_rows, "N of the whole-pipeline comparison");
  app.add_option("--design-rows", s.design_rows, "N of the design matrix + Phi^T Phi pass");
  app.add_option("--experiment-runs", s.experiment_runs, "runs of the experiment part");
  app.add_option("--csv-rows", s.csv_rows, "rows of the CSV reading part (--tasks csv)");
  app.add_option("--refine-rows", s.refine_rows,
                 "N of the whole-network gradient part (--tasks refine)");
  app.add_option("--experiment-data", s.experiment_data,
                 "folder holding synth3_train.csv and synth3_test.csv");
  app.add_option("--distributed-sizes", s.distributed.sizes, "N of the distributed scaling runs");
  app.add_option("--distributed-ranks", s.distributed.ranks,
                 "rank counts of the distributed runs (the first is the baseline)");
  app.add_option("--traffic-rows", s.distributed.traffic_rows,
                 "N of the distributed per-iteration volume runs");
  app.add_option("--mpirun", s.distributed.mpirun, "the MPI launcher (default: mpirun on PATH)");
  app.add_option("--threads", s.threads, "threads on both sides (0: all cores)");
  app.add_option("--work", s.work, "folder for the shared .npy files (removed at the end)");
  app.add_flag("--keep", s.keep, "keep the work folder");
  app.add_option("--guard", s.guard,
                 "measure the headline ratios at the guard's sizes and fail (exit 1) when one is "
                 "more than the baseline's factor (2) times its committed value")
      ->check(CLI::ExistingFile);
  app.add_option("--write-baseline", s.write_baseline,
                 "measure the headline ratios at the guard's sizes and write them here");
  app.add_option("--guard-rounds", s.guard_rounds,
                 "at most this many measurements of every ratio before the guard fails")
      ->check(CLI::Range(1, 10));
  std::string read_csv_file;
  app.add_option("--read-csv", read_csv_file)->group("");  // the child of the csv part
  int read_threads = 0;
  app.add_option("--read-threads", read_threads)->group("");
  CLI11_PARSE(app, argc, argv);
  if (!read_csv_file.empty()) return read_csv_child(read_csv_file, read_threads);
  const bool guarding = !s.guard.empty() || !s.write_baseline.empty();
  if (guarding) guard_settings(s, app.count("--threads") != 0);
  if (quick) quick_settings(s);
  // Radial's side in this process calls OpenBLAS too (the IRLS Hessians, the solves): give it
  // the same thread count as scikit-learn's children, or "one thread on both sides" would let
  // Radial's BLAS use every core (and wait on a busy one: IRLS took 14 s instead of 1 beside a
  // build).
  radial::set_blas_threads(radial::resolve_threads(s.threads));
  try {
    if (!guarding) {
      Bench(s).run();
      return 0;
    }
    return run_guard(s);
  } catch (const std::exception& e) {
    std::cerr << "radial-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
