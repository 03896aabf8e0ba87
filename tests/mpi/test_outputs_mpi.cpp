// Output layers on rows sharded over MPI ranks against one process on all rows: for every
// shipped output layer (least-squares by SVD, by normal equations and refined, by conjugate
// gradient, irls, scg, bfgs with the links they train, with and without weight decay, and bayes
// with and without its K-d tree),
// the weights, iteration counts, termination, final error, learning curve and report figures of
// a fit inside ShardedScope(world()) on this rank's shard equal the fit outside the scope on all
// rows to 1e-10 relative; two sharded fits give the same bits, and every rank the same bits.
// Shards: even (N not divisible by 2 or 3), uneven with rank 0 holding no rows, and rows sorted
// by class so that a class is missing from some ranks; SCG, BFGS and IRLS on shards of whole
// row blocks too, where they must equal one process bit for bit (see exact_on_aligned; least
// squares by cg on aligned shards only, bit for bit in its weights, iterations and residuals:
// see exact_weights_on_aligned). Every rank runs every case; only CHECKs
// (never REQUIRE) follow a collective, so a failing rank still makes the same calls as the
// others and the job never hangs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <radial/network/basis.hpp>
#include <radial/distributed/collectives.hpp>
#include <radial/data/data_reader.hpp>
#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/core/fit_context.hpp>
#include <radial/numerics/kmeans/kmeans.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/network/output_layer.hpp>
#include <radial/exec/parallel.hpp>
#include <radial/core/params.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/distributed/sharded_pass.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>
#include <radial/network/weight_penalty.hpp>

using namespace radial;

namespace {

constexpr double kRelative = 1e-10;

const Registry& registry() {
  return testing::plugin_registry({"basis-gaussian", "output-least-squares", "output-irls",
                                   "output-scg", "output-bfgs", "output-bayes",
                                   "weight-penalty-weight-decay"});
}

// A shipped data set, every feature standardised over all rows (population deviation).
Dataset load(const std::string& file, Task task) {
  DataOptions options;
  options.task = task;
  Dataset d = read_csv(testing::source_dir() / "docs/examples/data" / file, options);
  const std::size_t n = d.rows(), p = d.features();
  for (std::size_t c = 0; c < p; ++c) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mean += d.inputs(i, c) / double(n);
    for (std::size_t i = 0; i < n; ++i)
      var += (d.inputs(i, c) - mean) * (d.inputs(i, c) - mean) / double(n);
    const double sd = var > 0 ? std::sqrt(var) : 1.0;
    for (std::size_t i = 0; i < n; ++i) d.inputs(i, c) = (d.inputs(i, c) - mean) / sd;
  }
  return d;
}

// The rows of `data` in class order (stable), so that contiguous shards miss classes.
Dataset sorted_by_class(const Dataset& data) {
  std::vector<std::size_t> index(data.rows());
  std::iota(index.begin(), index.end(), std::size_t(0));
  std::stable_sort(index.begin(), index.end(), [&](std::size_t a, std::size_t b) {
    return data.classes(a) < data.classes(b);
  });
  return select_rows(data, index);
}

// A fixed network to train the outputs of: centres, their basis, and the data.
struct Problem {
  std::string name;
  Dataset data;
  Centres centres;
  std::shared_ptr<Basis> basis;
};

std::shared_ptr<Basis> gaussian(Centres& centres, double width, bool density) {
  auto basis = registry().make_basis(
      "gaussian", validate_params(registry().require(Slot::Basis, "gaussian").params,
                                  {{"width", width}, {"density", density}}, "test"));
  FitContext ctx(1);
  basis->prepare(centres, ctx);
  return basis;
}

// k-means centres on all rows (outside any scope: the same on every rank), Gaussian basis.
Problem kmeans_problem(const std::string& name, Dataset data, std::size_t m, double width) {
  KMeansOptions options;
  options.count = m;
  std::mt19937_64 rng(7);
  Problem p;
  p.name = name;
  p.centres.means = kmeans(data.inputs, options, rng).centres;
  p.basis = gaussian(p.centres, width, false);
  p.data = std::move(data);
  return p;
}

// Per-class diagonal mixtures (EM on all rows), Gaussian density basis: the bayes output.
Problem mixture_problem(const std::string& name, Dataset data, std::size_t per_class) {
  EmOptions em;
  em.shape = Shape::Diagonal;
  em.iterations = 30;
  std::mt19937_64 rng(11);
  Problem p;
  p.name = name;
  p.centres = fit_class_mixtures(data.inputs, data.classes, data.num_classes, per_class, em, rng,
                                 "test")
                  .centres;
  p.basis = gaussian(p.centres, 0.0, true);
  p.data = std::move(data);
  return p;
}

struct Config {
  std::string plugin;
  std::map<std::string, ParamValue> params;
  double alpha = 0;  // weight decay; 0: none
  std::string label() const {
    std::string s = plugin;
    for (const auto& [key, value] : params) s += " " + key + "=" + radial::to_string(value);
    if (alpha > 0) s += " weight-decay=" + std::to_string(alpha);
    return s;
  }
};

struct Fit {
  OutputWeights out;
  FitReport report;
};

Fit fit(const Config& config, const Problem& problem, const Dataset& rows) {
  const Registry& r = registry();
  auto layer = r.make_output_layer(
      config.plugin,
      validate_params(r.require(Slot::Output, config.plugin).params, config.params, "test"));
  std::shared_ptr<WeightPenalty> penalty;
  if (config.alpha > 0)
    penalty = r.make_weight_penalty(
        "weight-decay",
        validate_params(r.require(Slot::WeightPenalty, "weight-decay").params,
                        {{"alpha", config.alpha}}, "test"));
  FitContext ctx(1);
  const DesignMatrix design(rows.inputs, problem.centres, *problem.basis);
  const TrainingProblem training{design, rows, problem.centres, *problem.basis};
  Fit f;
  f.out = layer->fit(training, penalty.get(), ctx);
  f.report = ctx.report;
  return f;
}

bool close(double a, double b) {
  if (a == b) return true;  // also equal infinities
  return std::fabs(a - b) <= kRelative * std::max(std::fabs(a), std::fabs(b));
}

double max_abs_finite(const Matrix& m) {
  double v = 0;
  for (double x : m)
    if (std::isfinite(x)) v = std::max(v, std::fabs(x));
  return v;
}

// Report figures that are wall times (least squares by cg: preconditioner_seconds), left out
// of every comparison as FitReport::seconds is.
bool measures_time(const std::string& figure) {
  const std::string suffix = "seconds";
  return figure.size() >= suffix.size() &&
         figure.compare(figure.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The sharded fit against the one-process fit: the same model and report.
void check_same(const Fit& all, const Fit& sharded) {
  CHECK(sharded.out.link == all.out.link);
  CHECK(sharded.out.weights.shape(0) == all.out.weights.shape(0));
  CHECK(sharded.out.weights.shape(1) == all.out.weights.shape(1));
  if (sharded.out.weights.size() == all.out.weights.size()) {
    // Relative to the largest weight (entries near zero carry the others' rounding); entries
    // that are not finite (bayes: log 0) must be the same.
    const double scale = max_abs_finite(all.out.weights);
    double worst = 0;
    for (std::size_t i = 0; i < all.out.weights.size(); ++i) {
      const double a = all.out.weights.data()[i], b = sharded.out.weights.data()[i];
      if (!std::isfinite(a) || !std::isfinite(b)) {
        CHECK(a == b);
        continue;
      }
      worst = std::max(worst, std::fabs(a - b));
    }
    INFO("largest weight difference " << worst << " for weights up to " << scale);
    CHECK(worst <= kRelative * scale);
  }
  const FitReport &a = all.report, &b = sharded.report;
  CHECK(b.iterations == a.iterations);
  CHECK(b.termination == a.termination);
  CHECK(b.message == a.message);
  INFO("final error " << a.final_error << " and " << b.final_error);
  CHECK(close(a.final_error, b.final_error));
  CHECK(close(a.flops, b.flops));
  CHECK(b.function_evaluations == a.function_evaluations);
  CHECK(b.gradient_evaluations == a.gradient_evaluations);
  CHECK(b.curve.size() == a.curve.size());
  for (std::size_t i = 0; i < std::min(a.curve.size(), b.curve.size()); ++i) {
    INFO("curve point " << i);
    CHECK(b.curve[i].iteration == a.curve[i].iteration);
    CHECK(close(a.curve[i].error, b.curve[i].error));
    CHECK(close(a.curve[i].flops, b.curve[i].flops));
  }
  CHECK(b.figures.size() == a.figures.size());
  for (const auto& [key, value] : a.figures) {
    if (measures_time(key)) continue;
    INFO("figure " << key << " = " << value);
    const auto at = b.figures.find(key);
    CHECK(at != b.figures.end());
    if (at != b.figures.end()) CHECK(close(value, at->second));
  }
  CHECK(b.warnings.size() == a.warnings.size());
  for (std::size_t i = 0; i < std::min(a.warnings.size(), b.warnings.size()); ++i)
    CHECK(b.warnings[i].guard == a.warnings[i].guard);
}

// Bits of the weights and of every report number that does not measure time.
std::string bits(const Fit& f) {
  std::vector<double> v(f.out.weights.begin(), f.out.weights.end());
  const FitReport& r = f.report;
  v.insert(v.end(), {double(r.iterations), r.final_error, r.flops,
                     double(r.function_evaluations), double(r.gradient_evaluations)});
  for (const auto& point : r.curve) v.insert(v.end(), {point.error, point.flops});
  for (const auto& [key, value] : r.figures)
    if (!measures_time(key)) v.push_back(value);
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

// Even: rows split evenly (N not divisible by the ranks, shards not on block boundaries).
// Aligned: whole row blocks of parallel_block_rows split evenly, so every rank's blocks are the
// one-process blocks. FirstRankEmpty: rank 0 holds no rows, the others split the rows as above.
enum class Split { Even, FirstRankEmpty, Aligned, AlignedFirstRankEmpty };

// This rank's contiguous rows of `data` under `split` over the ranks of world().
Dataset shard(const Dataset& data, Split split) {
  const int p = world().size(), r = world().rank();
  const bool aligned = split == Split::Aligned || split == Split::AlignedFirstRankEmpty;
  const bool first_empty =
      (split == Split::FirstRankEmpty || split == Split::AlignedFirstRankEmpty) && p > 1;
  const std::size_t unit = aligned ? parallel_block_rows : 1;
  const std::size_t units = (data.rows() + unit - 1) / unit;
  RowRange range = even_shard(units, r, p);
  if (first_empty) range = r == 0 ? RowRange{0, 0} : even_shard(units, r - 1, p - 1);
  range.first *= unit;
  range.count = std::min(range.count * unit, data.rows() - std::min(data.rows(), range.first));
  std::vector<std::size_t> index(range.count);
  std::iota(index.begin(), index.end(), range.first);
  return select_rows(data, index);
}

// Trainers whose iterations can amplify a last-bit difference in the sums (SCG and BFGS over
// long runs, IRLS on separable classes): on aligned shards their passes are one process's bit
// for bit, and so is everything they report. (On shards that cut row blocks the sums differ in
// the last bits, and SCG's and BFGS's iterates drift apart after tens of iterations, to about
// the stopping tolerance.)
bool exact_on_aligned(const Config& config) {
  return config.plugin == "scg" || config.plugin == "bfgs" || config.plugin == "irls";
}

// Least squares by conjugate gradient: its passes (Phi^T T, then Phi^T Phi D per iteration)
// continue one process's fold over the row blocks, and its row blocks (a power of two dividing
// 1024) split the aligned shards' blocks, so on aligned shards its weights and residuals are one
// process's bit for bit. Its sum of squares (the final error and the sse figure) is a sum of
// per-rank partials, as the direct solvers' is: equal to rounding only. On shards that cut row
// blocks its iterates drift apart as SCG's do. Measured on 2 even shards: weights 2.5e-5 of the
// largest apart after 3 iterations (waveform, 12 k-means centres, weight decay 1e-3; one
// process with 512-row against 1024-row blocks differs as much), and 2.4e-6 apart with 33
// against 34 iterations at tolerance 1e-8 (313 centres). So it is compared on aligned shards.
bool exact_weights_on_aligned(const Config& config) {
  const auto solver = config.params.find("solver");
  return config.plugin == "least-squares" && solver != config.params.end() &&
         std::get<std::string>(solver->second) == "cg";
}

// The shards each trainer is compared on: SCG, BFGS and least squares by cg on aligned ones
// (above), IRLS on both, the direct layers (least squares, bayes) on even ones. IRLS by
// Newton-CG (solver = "cg") on aligned ones only: its conjugate-gradient iterations amplify a
// last-bit difference of the products as SCG does (measured on even shards of waveform: weights
// 7e-8 apart, the same Newton iterations and final error to 1e-10, the flops of differing CG
// counts).
std::vector<Split> splits_for(const Config& config, bool first_rank_empty) {
  const Split even = first_rank_empty ? Split::FirstRankEmpty : Split::Even;
  const Split aligned = first_rank_empty ? Split::AlignedFirstRankEmpty : Split::Aligned;
  const auto solver = config.params.find("solver");
  if (config.plugin == "irls" && solver != config.params.end() &&
      std::get<std::string>(solver->second) == "cg")
    return {aligned};
  if (config.plugin == "irls") return {even, aligned};
  if (exact_on_aligned(config) || exact_weights_on_aligned(config)) return {aligned};
  return {even};
}

// One process on all rows, then twice on this rank's shard: equal, and bit-identical between
// the two sharded runs and over the ranks.
void check_config(const Config& config, const Problem& problem, const Dataset& rows,
                  Split split) {
  static const char* const names[] = {"even shards", "rank 0 without rows", "aligned shards",
                                      "aligned shards, rank 0 without rows"};
  INFO(problem.name << ": " << config.label() << " on " << world().size() << " ranks, "
                    << names[int(split)]);
  const Fit all = fit(config, problem, rows);
  const Dataset mine = shard(rows, split);
  Fit first, second;
  {
    ShardedScope scope(world());
    first = fit(config, problem, mine);
    second = fit(config, problem, mine);
  }
  check_same(all, first);
  // SCG and BFGS continue one process's fold over the row blocks (fold_blocks_over_ranks):
  // with aligned shards their every number is one process's, bit for bit.
  const bool aligned = split == Split::Aligned || split == Split::AlignedFirstRankEmpty;
  if (exact_on_aligned(config) && aligned) CHECK(bits(first) == bits(all));
  if (exact_weights_on_aligned(config) && aligned) {
    const auto& a = all.report.series, &b = first.report.series;
    CHECK(a.count("cg_residual") == 1);
    CHECK(b.count("cg_residual") == 1);
    if (a.count("cg_residual") && b.count("cg_residual")) {
      CHECK(b.at("cg_residual") == a.at("cg_residual"));
      CHECK(first.out.weights.size() == all.out.weights.size());
      if (first.out.weights.size() == all.out.weights.size())
        CHECK(std::equal(all.out.weights.begin(), all.out.weights.end(),
                         first.out.weights.begin()));
    }
  }
  CHECK(bits(first) == bits(second));
  const std::vector<std::string> every = world().all_gather(bits(first));
  for (std::size_t q = 0; q < every.size(); ++q) {
    INFO("rank " << q << " against rank 0");
    CHECK(every[q] == every[0]);
  }
}

const Problem& waveform() {
  static const Problem p = kmeans_problem("waveform", load("waveform.csv", Task::Classification),
                                          12, 3.0);
  return p;
}
const Problem& breast_cancer() {
  static const Problem p = kmeans_problem(
      "breast_cancer", load("breast_cancer.csv", Task::Classification), 10, 4.0);
  return p;
}
// 313 training rows as centres (every 16th): the cg path's blocks of 256 rows (about 1 MB of
// 314 columns) split the 1024-row blocks of the design and of aligned shards.
const Problem& waveform_wide() {
  static const Problem p = [] {
    Problem q;
    q.name = "waveform, 313 row centres";
    q.data = load("waveform.csv", Task::Classification);
    std::vector<std::size_t> rows;
    for (std::size_t i = 0; i < q.data.rows(); i += 16) rows.push_back(i);
    q.centres.means = select_rows(q.data, rows).inputs;
    q.basis = gaussian(q.centres, 4.0, false);
    return q;
  }();
  return p;
}
const Problem& sine() {
  static const Problem p = kmeans_problem("sine", load("sine.train.csv", Task::Regression), 8,
                                          0.5);
  return p;
}

// Every shipped output layer with the links it trains and with weight decay.
std::vector<std::pair<const Problem*, Config>> configurations() {
  const Problem *w = &waveform(), *b = &breast_cancer(), *s = &sine();
  std::vector<std::pair<const Problem*, Config>> out;
  for (const std::string solver : {"svd", "normal-equations"}) {
    out.push_back({w, {"least-squares", {{"solver", solver}}}});
    out.push_back({w, {"least-squares", {{"solver", solver}}, 0.1}});
    out.push_back({s, {"least-squares", {{"solver", solver}}}});
  }
  // Under a penalty auto refines the normal equations: a pass per step over every rank's rows.
  out.push_back({w, {"least-squares", {{"solver", std::string("auto")}}, 0.1}});
  out.push_back({s, {"least-squares", {{"solver", std::string("refined-normal-equations")}}, 1e-6}});
  for (const std::string hessian : {"exact", "simplified"})
    out.push_back({w, {"irls", {{"hessian", hessian}}}});
  out.push_back({w, {"irls", {}, 0.05}});
  out.push_back({b, {"irls", {{"link", std::string("logistic")}}, 0.01}});
  out.push_back({b, {"irls", {{"link", std::string("logistic")}}}});
  out.push_back({s, {"irls", {}}});
  // Conjugate gradient: one pass per iteration over every rank's rows.
  const std::string cg = "cg";
  out.push_back({w, {"least-squares", {{"solver", cg}}, 0.1}});
  out.push_back({w, {"least-squares", {{"solver", cg}, {"tolerance", 1e-10}}, 1e-3}});
  out.push_back(
      {w, {"least-squares", {{"solver", cg}, {"max_iterations", std::int64_t(3)}}, 1e-3}});
  out.push_back({&waveform_wide(), {"least-squares", {{"solver", cg}, {"tolerance", 1e-8}}, 0.05}});
  // Phi made and kept in single precision: every rank rounds its rows' activations alike.
  out.push_back({&waveform_wide(),
                 {"least-squares",
                  {{"solver", cg}, {"precision", std::string("single")}, {"tolerance", 1e-8}},
                  0.05}});
  out.push_back({s, {"least-squares", {{"solver", cg}, {"tolerance", 1e-10}}, 1e-6}});
  // Newton-CG: the Hessian-vector products are passes like the gradient's.
  out.push_back({w, {"irls", {{"solver", std::string("cg")}}, 0.05}});
  out.push_back(
      {b, {"irls", {{"link", std::string("logistic")}, {"solver", std::string("cg")}}, 0.01}});
  for (const std::string trainer : {"scg", "bfgs"}) {
    out.push_back({w, {trainer, {}}});
    out.push_back({w, {trainer, {}, 0.05}});
    out.push_back({w, {trainer, {{"start", std::string("zero")}}, 0.05}});
    out.push_back({b, {trainer, {{"link", std::string("logistic")}}, 0.01}});
    out.push_back({b, {trainer, {{"link", std::string("logistic")}}}});
    out.push_back({s, {trainer, {{"start", std::string("zero")}}}});
    out.push_back({s, {trainer, {{"start", std::string("zero")}}, 0.01}});
  }
  return out;
}

}  // namespace

TEST_CASE("output layers on sharded rows equal one process on all rows", "[mpi][output]") {
  for (const auto& [problem, config] : configurations())
    for (const Split split : splits_for(config, false))
      check_config(config, *problem, problem->data, split);
}

TEST_CASE("output layers with a rank without rows", "[mpi][output]") {
  for (const auto& [problem, config] : configurations())
    if (problem == &waveform())
      for (const Split split : splits_for(config, true))
        check_config(config, *problem, problem->data, split);
}

TEST_CASE("output layers with a class missing from some ranks' rows", "[mpi][output]") {
  // Sorted by class, contiguous shards hold one or two of the three classes each.
  Problem sorted = waveform();
  sorted.data = sorted_by_class(waveform().data);
  for (const auto& [problem, config] : configurations())
    if (problem == &waveform())
      for (const Split split : splits_for(config, false))
        check_config(config, sorted, sorted.data, split);
}

TEST_CASE("bayes on sharded rows equals one process on all rows", "[mpi][output][bayes]") {
  static const Problem mixtures =
      mixture_problem("waveform mixtures", load("waveform.csv", Task::Classification), 3);
  Problem sorted = mixtures;
  sorted.data = sorted_by_class(mixtures.data);
  const std::vector<Config> configs = {
      {"bayes", {}},
      {"bayes", {{"kdtree", true}, {"threshold", 9.0}}},
  };
  for (const Config& config : configs) {
    check_config(config, mixtures, mixtures.data, Split::Even);
    check_config(config, mixtures, mixtures.data, Split::FirstRankEmpty);
    check_config(config, sorted, sorted.data, Split::Even);
  }
}

TEST_CASE("a bad class index in one rank's rows stops every rank with that rank's error",
          "[mpi][output][errors]") {
  // The last rank's first row gets a class index outside 0..K-1: found by that rank alone, in
  // the middle of a pass (irls, scg: the targets are coded per block) or before it
  // (least-squares: targets_for). Every rank must throw, none may wait in a later pass.
  const int p = world().size(), r = world().rank();
  Dataset mine = shard(waveform().data, Split::Even);
  if (r == p - 1 && mine.rows() > 0) mine.classes(0) = 99;
  const std::vector<Config> configs = {
      {"irls", {}}, {"scg", {}}, {"bfgs", {{"start", std::string("zero")}}},
      {"least-squares", {{"solver", std::string("normal-equations")}}}};
  for (const Config& config : configs) {
    INFO(config.label() << " on " << p << " ranks");
    ShardedScope scope(world());
    bool thrown = false;
    try {
      fit(config, waveform(), mine);
    } catch (const ShapeError& e) {
      thrown = true;
      const std::string message = e.what();
      CHECK(message.find("class index 99") != std::string::npos);
      if (p > 1) CHECK(message.find("rank " + std::to_string(p - 1) + ": ") == 0);
    }
    CHECK(thrown);
  }
}
