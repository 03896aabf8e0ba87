#include "prbf.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <xtensor-blas/xlinalg.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/core/text.hpp"

namespace radial::plugins {

namespace {

constexpr const char* kId = prbf_id;

using text::number;

// Per-feature variance floors: floor_d = relative * var(x_d), or `relative` for a constant
// column. A constant column carries no information about the kernels: every kernel's variance
// there is the floor and its covariances with the other features are 0, which leaves
// p(C_k|x) unchanged; that is not counted as the guard firing (it is reported once).
struct Floors {
  Vector floor;
  std::vector<bool> constant;
  std::size_t constant_count = 0;
};

// Floors relative to each column's variance over every rank's rows (`rows` of them).
Floors variance_floors(const Matrix& x, std::size_t rows, double relative) {
  const std::size_t d = x.shape(1);
  Floors f;
  f.floor = Vector::from_shape({d});
  f.constant.assign(d, false);
  const Vector var = column_variances(x, rows);
  for (std::size_t a = 0; a < d; ++a) {
    const double v = var(a);
    f.constant[a] = !(v > 0);
    f.constant_count += f.constant[a] ? 1 : 0;
    f.floor(a) = v > 0 ? relative * v : relative;
  }
  return f;
}

// Raises the covariance of kernel j to at least diag(floor) in the Loewner order, changing it
// only when needed: eigenvalues of D^{-1/2} S D^{-1/2} below 1 are raised to 1. For a diagonal
// S this is max(s_d, floor_d). Returns whether it changed anything outside constant columns.
bool apply_floor(Centres& kernels, std::size_t j, const Floors& floors) {
  const std::size_t d = kernels.dim();
  const Vector& floor = floors.floor;
  if (kernels.shape == Shape::Diagonal) {
    bool changed = false;
    for (std::size_t a = 0; a < d; ++a) {
      if (floors.constant[a]) {
        kernels.diagonal(j, a) = floor(a);
      } else if (!(kernels.diagonal(j, a) >= floor(a))) {
        kernels.diagonal(j, a) = floor(a);
        changed = true;
      }
    }
    return changed;
  }
  for (std::size_t a = 0; a < d; ++a)
    if (floors.constant[a])
      for (std::size_t b = 0; b < d; ++b) {
        kernels.covariances(j, a, b) = a == b ? floor(a) : 0.0;
        kernels.covariances(j, b, a) = a == b ? floor(a) : 0.0;
      }
  Matrix scaled = Matrix::from_shape({d, d});
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b)
      scaled(a, b) = kernels.covariances(j, a, b) / std::sqrt(floor(a) * floor(b));
  bool finite = true;
  for (double v : scaled) finite = finite && std::isfinite(v);
  if (!finite) {  // nothing to keep: fall back to the floor itself
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) kernels.covariances(j, a, b) = a == b ? floor(a) : 0.0;
    return true;
  }
  auto [values, vectors] = xt::linalg::eigh(scaled);
  // A constant column gives an eigenvalue of exactly 1 up to rounding: not a firing.
  constexpr double kRounding = 1e-10;
  bool low = false;
  for (std::size_t i = 0; i < d; ++i) low = low || values(i) < 1.0 - kRounding;
  if (!low) return false;
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double s = 0;
      for (std::size_t i = 0; i < d; ++i)
        s += vectors(a, i) * std::max(values(i), 1.0) * vectors(b, i);
      s *= std::sqrt(floor(a) * floor(b));
      kernels.covariances(j, a, b) = s;
      kernels.covariances(j, b, a) = s;
    }
  return true;
}

// |X_k|, the training rows of each class over every rank (classes holds this rank's rows).
std::vector<std::size_t> class_sizes(const Labels& classes, std::size_t k) {
  std::vector<std::uint64_t> sizes(k, 0);
  for (std::size_t r = 0; r < classes.size(); ++r) ++sizes[std::size_t(classes(r))];
  sum_over_ranks(sizes);
  return std::vector<std::size_t>(sizes.begin(), sizes.end());
}

// The kernels alone (means and covariances), as a kernel prior sees them.
Centres kernels_only(const Centres& theta);

// The E-step (eq 4, P(j|x,C_k) = pi_jk p(x|j) / sum_i pi_ik p(x|i)) by the framework's
// class-weighted E-step, over fixed row blocks with an ordered reduction (the same counts for
// any thread count). Per kernel j and class k, counts.class_c1(j, k) = sum_{x in X_k} P(j|x,C_k)
// and counts.class_cx(j, k, :) = sum_{x in X_k} P(j|x,C_k) x (the sums of eqs 6-8, 11); the
// scatter is centred on the E-step's means, so eqs 7 and 28 (covariance_about) avoid the
// E[x^2] - mean^2 cancellation. Returns sum_k sum_{x in X_k} log sum_j pi_jk p(x|j), eq 22's
// data term.
double responsibilities(const Matrix& x, const Labels& classes, const Centres& theta,
                        const Matrix& log_pi, std::size_t block_rows, int threads,
                        MixtureCounts& counts) {
  EStepOptions options;
  options.block_rows = std::max<std::size_t>(block_rows, 1);
  options.threads = threads;
  return e_step(x, kernels_only(theta), log_pi, classes, options, counts).log_likelihood;
}

Matrix log_of(const Matrix& pi) {
  Matrix out = pi;
  for (double& v : out) v = log_or_minus_inf(v);
  return out;
}

Centres kernels_only(const Centres& theta) {
  Centres kernels;
  kernels.means = theta.means;
  kernels.shape = theta.shape;
  kernels.diagonal = theta.diagonal;
  kernels.covariances = theta.covariances;
  return kernels;
}

void check_inputs(const Matrix& x, const Labels& classes, std::size_t num_classes,
                  const Centres& initial, const PrbfOptions& options) {
  const std::string where = std::string("centres ") + kId + ": ";
  if (x.shape(0) != classes.size())
    throw ShapeError(where + std::to_string(x.shape(0)) + " input rows but " +
                     std::to_string(classes.size()) + " class labels");
  for (std::size_t r = 0; r < classes.size(); ++r)
    if (classes(r) < 0 || std::size_t(classes(r)) >= num_classes)
      throw ShapeError(where + "row " + std::to_string(r) + " has class index " +
                       std::to_string(classes(r)) + ", outside 0.." +
                       std::to_string(num_classes - 1));
  if (options.shape != Shape::Diagonal && options.shape != Shape::Full)
    throw ShapeError(where + "covariance must be diagonal or full");
  if (initial.shape != options.shape)
    throw ShapeError(where + "the initial kernels have shape '" + to_string(initial.shape) +
                     "' but covariance = '" + to_string(options.shape) + "'");
  if (initial.means.shape(1) != x.shape(1))
    throw ShapeError(where + "the initial kernels have " + std::to_string(initial.means.shape(1)) +
                     " dimensions, the data " + std::to_string(x.shape(1)));
  if (initial.mixing.dimension() != 2 || initial.mixing.shape(0) != initial.count() ||
      initial.mixing.shape(1) != num_classes)
    throw ShapeError(where + "the initial mixing weights must be M x K = " +
                     std::to_string(initial.count()) + " x " + std::to_string(num_classes));
}

// The guards of one run, each reported once after the loop with its first occurrence.
struct Guards {
  std::size_t floor_count = 0, clamp_count = 0, fallback_count = 0;
  std::string first_clamp, first_floor;
  std::set<std::size_t> dead;
};

// Eq 20: P(C_k) = |X_k| / |X|. A class with no training rows gets uniform mixing weights (and a
// warning): eq 8 has nothing to average there.
void set_class_priors(Centres& theta, const std::vector<std::size_t>& sizes, std::size_t n,
                      FitContext& ctx) {
  const std::size_t m = theta.count(), k = sizes.size();
  theta.class_priors = Vector::from_shape({k});
  for (std::size_t c = 0; c < k; ++c) theta.class_priors(c) = double(sizes[c]) / double(n);
  for (std::size_t c = 0; c < k; ++c)
    if (sizes[c] == 0) {
      for (std::size_t j = 0; j < m; ++j) theta.mixing(j, c) = 1.0 / double(m);
      ctx.warn("empty-class",
               "class " + std::to_string(c) + " has no training rows: P(C_" + std::to_string(c) +
                   ") = 0 and its mixing weights are uniform",
               "use stratified folds or a larger training set");
    }
}

// The variance floors over every rank's n rows (missing cells at their columns' means), with the
// initial kernels raised to them before the first E-step.
Floors floor_initial_kernels(const Matrix& x, std::size_t n, double relative, Centres& theta,
                             Guards& guards, FitContext& ctx) {
  const Floors floor = has_missing(x) ? variance_floors(mean_imputed(x), n, relative)
                                      : variance_floors(x, n, relative);
  if (floor.constant_count > 0)
    ctx.warn("constant-column",
             std::to_string(floor.constant_count) +
                 " input column(s) are constant in the training rows; every kernel's variance "
                 "there is the variance floor, which leaves p(C_k|x) unchanged",
             "drop the constant column(s) from the data");
  for (std::size_t j = 0; j < theta.count(); ++j)
    if (apply_floor(theta, j, floor) && guards.floor_count++ == 0)
      guards.first_floor = "initial covariance of kernel " + std::to_string(j);
  return floor;
}

// The kernel prior's view of theta_t after the E-step: the kernels, the subkernel means mu_jk
// (eq 11; a subkernel with no responsibility takes its kernel's mean) and P(C_k|j) at pi^(t)
// (eq 15).
void prior_input_at(const Centres& theta, const MixtureCounts& stats, KernelPriorInput& before) {
  const std::size_t m = theta.count(), k = theta.mixing.shape(1), d = theta.dim();
  before.kernels = kernels_only(theta);
  before.class_given_kernel = class_given_kernel(theta.mixing, theta.class_priors);
  before.subkernel_means = Tensor3::from_shape({m, k, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t a = 0; a < d; ++a)
        before.subkernel_means(j, c, a) = stats.class_c1(j, c) > 0
                                            ? stats.class_cx(j, c, a) / stats.class_c1(j, c)
                                            : theta.means(j, a);
}

// L(theta_t), eq 22: the E-step's data term plus the kernel prior's log-density, recorded in the
// report's series and curve. The prior's input is checked once per iteration: a third-party
// prior receives only consistent arrays. A non-finite L(theta) stops the fit.
double log_posterior(double log_likelihood, const KernelPrior* prior,
                     const KernelPriorInput& before, std::size_t t,
                     std::chrono::steady_clock::time_point started, FitContext& ctx) {
  const bool map = prior != nullptr;
  if (map) before.check();
  const double log_prior = map ? -prior->kernel_penalty(before) : 0.0;
  const double posterior = log_likelihood + log_prior;
  FitReport& report = ctx.report;
  report.series["log_likelihood"].push_back(log_likelihood);
  report.series["log_prior"].push_back(log_prior);
  report.series["log_posterior"].push_back(posterior);
  report.curve.push_back({t, -posterior, 0.0,
                          std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                        started).count()});
  ctx.progress(std::string(kId) + ": iteration " + std::to_string(t) + "  L(theta) = " +
               number(posterior));
  if (!std::isfinite(posterior))
    throw NumericalError(std::string("centres ") + kId + ": L(theta) is " + number(posterior) +
                         " at iteration " + std::to_string(t) +
                         "; raise centres.variance_floor");
  return posterior;
}

// M-step of the kernels. Means: eq 27 (eq 6 when the prior adds nothing). Covariances about the
// new mean: eq 28 (eq 7 when the mean is eq 6's), from the scatter about the E-step's means
// (covariance_about), then raised to the variance floor. A kernel with (almost) no
// responsibility keeps its mean and covariance.
void m_step_kernels(const MixtureCounts& stats, const KernelPrior* prior,
                    const KernelPriorInput& before, const Floors& floor, bool full, std::size_t t,
                    Centres& next, Guards& guards, FitContext& ctx) {
  const std::size_t m = before.count(), k = before.classes(), d = before.dim();
  KernelMeanTerms mean_terms = KernelMeanTerms::zeros(m, d);
  if (prior != nullptr) prior->add_mean_terms(before, mean_terms);
  for (std::size_t j = 0; j < m; ++j) {
    double total = 0;
    for (std::size_t c = 0; c < k; ++c) total += stats.class_c1(j, c);
    if (total < empty_component_count) {
      if (guards.dead.insert(j).second)
        ctx.warn("dead-kernel",
                 "kernel " + std::to_string(j) + " has total responsibility " + number(total) +
                     " rows at iteration " + std::to_string(t) +
                     "; it keeps its mean and covariance and has ~0 weight in every class",
                 "lower centres.count or kernel-prior.alpha");
      continue;
    }
    const double denominator = total + mean_terms.weight(j);
    std::vector<double> mean(d);
    for (std::size_t a = 0; a < d; ++a) {
      double numerator = mean_terms.target(j, a);
      for (std::size_t c = 0; c < k; ++c) numerator += stats.class_cx(j, c, a);
      mean[a] = numerator / denominator;
      next.means(j, a) = mean[a];
    }
    covariance_about(stats, j, mean.data(),
                     full ? &next.covariances(j, 0, 0) : &next.diagonal(j, 0));
    if (apply_floor(next, j, floor) && guards.floor_count++ == 0)
      guards.first_floor = "kernel " + std::to_string(j) + " at iteration " + std::to_string(t);
  }
}

// Section 3.1: a negative mixing weight of class c is set to 0 and the class's weights
// renormalised; when every weight of the class is clamped it falls back to eq 8.
void clamp_and_normalise_class(Matrix& numerator, const MixtureCounts& stats, std::size_t c,
                               std::size_t class_size, std::size_t t, Centres& next,
                               Guards& guards) {
  const std::size_t m = numerator.shape(0);
  double sum = 0;
  for (std::size_t j = 0; j < m; ++j) {
    if (numerator(j, c) < 0) {
      if (guards.clamp_count++ == 0)
        guards.first_clamp = "pi(" + std::to_string(j) + ", " + std::to_string(c) + ") = " +
                             number(numerator(j, c) / double(class_size)) + " at iteration " +
                             std::to_string(t);
      numerator(j, c) = 0;
    }
    sum += numerator(j, c);
  }
  if (!(sum > 0)) {  // every weight of the class clamped: fall back to eq 8
    ++guards.fallback_count;
    sum = 0;
    for (std::size_t j = 0; j < m; ++j) sum += (numerator(j, c) = stats.class_c1(j, c));
  }
  for (std::size_t j = 0; j < m; ++j) next.mixing(j, c) = numerator(j, c) / sum;
}

// M-step of the mixing weights: eq 29 with the delta of eq 30 at the new kernels (eq 8 without
// a prior); a class with no rows keeps its uniform weights.
void m_step_mixing(const MixtureCounts& stats, const KernelPrior* prior,
                   const KernelPriorInput& before, KernelPriorInput& after,
                   const std::vector<std::size_t>& sizes, std::size_t t, Centres& next,
                   Guards& guards) {
  const std::size_t m = before.count(), k = before.classes();
  Matrix numerator = stats.class_c1;
  if (prior != nullptr) {
    after.kernels = kernels_only(next);
    after.subkernel_means = before.subkernel_means;
    after.class_given_kernel = before.class_given_kernel;
    Matrix terms = Matrix::from_shape({m, k});
    terms.fill(0.0);
    prior->add_mixing_terms(after, terms);
    numerator += terms;
  }
  for (std::size_t c = 0; c < k; ++c)
    if (sizes[c] != 0) clamp_and_normalise_class(numerator, stats, c, sizes[c], t, next, guards);
}

// The guards that fired during the run, each once with its count and first occurrence.
void warn_guards(const Guards& guards, FitContext& ctx) {
  if (guards.clamp_count > 0)
    ctx.warn("negative-mixing-clamp",
             "eq 29 gave " + std::to_string(guards.clamp_count) +
                 " negative mixing weights (first " + guards.first_clamp +
                 "); each was set to 0 and its class's weights renormalised",
             "a smaller kernel-prior.alpha");
  if (guards.fallback_count > 0)
    ctx.warn("negative-mixing-fallback",
             "eq 29 left no positive mixing weight in a class " +
                 std::to_string(guards.fallback_count) +
                 " times; those classes used the unregularised update (eq 8)",
             "a smaller kernel-prior.alpha");
  if (guards.floor_count > 0)
    ctx.warn("variance-floor",
             "a covariance was raised to the variance floor " +
                 std::to_string(guards.floor_count) + " times (first: " + guards.first_floor + ")",
             "centres.variance_floor, or fewer centres.count");
}

// The report's stop reason, figures and time. With tolerance 0 (the paper's fixed 100
// iterations) the cap is what stops it.
void finish_report(bool converged, std::size_t steps, const PrbfOptions& options, std::size_t n,
                   bool map, const Guards& guards, std::chrono::steady_clock::time_point started,
                   FitContext& ctx) {
  FitReport& report = ctx.report;
  report.iterations = steps;
  if (converged)
    report.stop(Termination::Converged,
                "L(theta) changed by at most tolerance * N = " +
                    number(options.tolerance * double(n)) + " after " + std::to_string(steps) +
                    " iterations");
  else
    report.stop(Termination::IterationCap,
                "ran to the cap of " + std::to_string(options.iterations) + " iterations" +
                    (options.tolerance > 0 ? " with L(theta) still changing by more than "
                                             "tolerance * N"
                                           : " (tolerance 0)"));
  report.final_error = -report.series["log_posterior"].back();
  report.figures["log_posterior"] = report.series["log_posterior"].back();
  report.figures["negative_mixing_clamps"] = double(guards.clamp_count);
  report.figures["variance_floor"] = double(guards.floor_count);
  report.figures["dead_kernels"] = double(guards.dead.size());
  report.figures["kernel_prior"] = map ? 1.0 : 0.0;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                       .count();
  if (!converged && options.tolerance > 0)
    ctx.warn("not-converged",
             "L(theta) still changed by more than tolerance * N after " +
                 std::to_string(steps) + " iterations",
             "centres.iterations or centres.tolerance");
}

}  // namespace

Centres prbf_em(const Matrix& x, const Labels& classes, std::size_t num_classes, Centres theta,
                const PrbfOptions& options, const KernelPrior* prior, FitContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  check_inputs(x, classes, num_classes, theta, options);
  // x holds this rank's rows when the data are sharded (radial/distributed/collectives.hpp); n
  // counts all.
  const std::size_t n = std::size_t(count_over_ranks(x.shape(0)));
  const std::vector<std::size_t> sizes = class_sizes(classes, num_classes);
  set_class_priors(theta, sizes, n, ctx);
  Guards guards;
  const Floors floor = floor_initial_kernels(x, n, options.variance_floor, theta, guards, ctx);

  FitReport& report = ctx.report;
  report.series["log_posterior"].clear();
  report.series["log_likelihood"].clear();
  report.series["log_prior"].clear();
  report.curve.clear();

  MixtureCounts stats;
  KernelPriorInput before, after;
  before.rows = after.rows = n;
  double previous = 0;
  std::size_t steps = 0;
  bool converged = false;
  for (std::size_t t = 0;; ++t) {
    const double log_likelihood = responsibilities(x, classes, theta, log_of(theta.mixing),
                                                   options.block_rows, ctx.threads, stats);
    prior_input_at(theta, stats, before);
    const double posterior = log_posterior(log_likelihood, prior, before, t, started, ctx);
    if (t > 0 && options.tolerance > 0 &&
        std::fabs(posterior - previous) <= options.tolerance * double(n)) {
      converged = true;
      break;
    }
    previous = posterior;
    if (t == options.iterations) break;

    Centres next = theta;
    m_step_kernels(stats, prior, before, floor, options.shape == Shape::Full, t, next, guards,
                   ctx);
    m_step_mixing(stats, prior, before, after, sizes, t, next, guards);
    theta = std::move(next);
    ++steps;
  }

  warn_guards(guards, ctx);
  finish_report(converged, steps, options, n, prior != nullptr, guards, started, ctx);
  theta.check();
  return theta;
}

Centres prbf_initial(const Matrix& x, const Labels& classes, std::size_t num_classes,
                     const PrbfOptions& options, FitContext& ctx) {
  const std::size_t n = x.shape(0), m = options.count;  // n: this rank's rows
  const std::size_t rows = std::size_t(count_over_ranks(n));
  if (rows < m)
    throw InputError(std::string("centres ") + kId + ": count = " + std::to_string(m) +
                     " kernels but only " + std::to_string(rows) +
                     " training rows; lower centres.count");
  KMeansOptions km;
  km.count = m;
  km.threads = ctx.threads;
  // Missing cells ([data] missing = "em"): the start is fitted with them at their columns'
  // observed means; the EM below treats them as missing.
  const bool missing = has_missing(x);
  const Matrix imputed = missing ? mean_imputed(x) : Matrix();
  const Matrix& start = missing ? imputed : x;
  const KMeansResult clusters = kmeans(start, km, ctx.rng);
  if (clusters.empty_cluster_repairs > 0)
    ctx.warn("empty-cluster",
             "k-means initialisation re-seeded " + std::to_string(clusters.empty_cluster_repairs) +
                 " empty clusters (farthest-point policy)",
             "lower centres.count");

  // Covariance of each cluster (the framework's M-step of 0/1 responsibilities); a cluster of
  // fewer than 2 rows takes the variance of all rows (the variance floor below handles the rest).
  Centres theta;
  Vector cluster_fractions;
  mixture_from_assignment(start, clusters.assignment, clusters.centres, options.shape, 0.0, theta,
                          cluster_fractions);
  const Floors floor = variance_floors(start, rows, options.variance_floor);
  for (std::size_t j = 0; j < m; ++j) apply_floor(theta, j, floor);

  theta.mixing = Matrix::from_shape({m, num_classes});
  theta.mixing.fill(1.0 / double(m));
  if (options.init == "kmeans") return theta;
  if (options.init != "gmm")
    throw ParameterError(std::string("centres ") + kId + ": init = '" + options.init +
                         "'. Violated constraint: init is one of kmeans, gmm");

  // "gmm": plain EM on all rows as one class (a label-free Gaussian mixture), then
  // pi_jk = (1/|X_k|) sum_{x in X_k} P(j|x) (eq 8 with the mixture's posteriors).
  Labels one_class = Labels::from_shape({n});
  one_class.fill(0);
  Centres mixture = theta;
  mixture.mixing = Matrix::from_shape({m, 1});
  mixture.mixing.fill(1.0 / double(m));
  PrbfOptions mixture_options = options;
  mixture_options.iterations = options.init_iterations;
  FitContext sub(0, ctx.threads);
  mixture = prbf_em(x, one_class, 1, mixture, mixture_options, nullptr, sub);
  for (const Warning& w : sub.report.warnings)
    // A short initial run is not meant to converge; constant columns are reported by the main run.
    if (w.guard != "not-converged" && w.guard != "constant-column")
      ctx.warn(w.guard, "gmm initialisation: " + w.message, w.setting);
  ctx.report.figures["init_gmm_iterations"] = double(sub.report.iterations);

  theta = kernels_only(mixture);
  Matrix log_w = Matrix::from_shape({m, num_classes});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < num_classes; ++c)
      log_w(j, c) = log_or_minus_inf(mixture.mixing(j, 0));
  MixtureCounts stats;
  responsibilities(x, classes, theta, log_w, options.block_rows, ctx.threads, stats);
  theta.mixing = Matrix::from_shape({m, num_classes});
  for (std::size_t c = 0; c < num_classes; ++c) {
    double total = 0;
    for (std::size_t j = 0; j < m; ++j) total += stats.class_c1(j, c);
    for (std::size_t j = 0; j < m; ++j)
      theta.mixing(j, c) = total > 0 ? stats.class_c1(j, c) / total : 1.0 / double(m);
  }
  return theta;
}

Centres PrbfLearner::fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) {
  if (train.task != Task::Classification || train.num_classes == 0)
    throw InputError(std::string("centres ") + kId +
                     ": PRBF models class-conditional densities and needs classification data (" +
                     (train.source.empty() ? std::string("the training set") : train.source) +
                     " has a regression target)");
  Centres initial = prbf_initial(train.inputs, train.classes, train.num_classes, options_, ctx);
  const std::map<std::string, double> init_figures = ctx.report.figures;
  Centres result =
      prbf_em(train.inputs, train.classes, train.num_classes, std::move(initial), options_, prior,
              ctx);
  for (const auto& [name, value] : init_figures) ctx.report.figures.emplace(name, value);
  return result;
}

}  // namespace radial::plugins
