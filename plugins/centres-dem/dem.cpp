// Discriminative EM (paper 002, fig. 2) with the extended Baum-Welch M-step; see dem.hpp.
#include "dem.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/kdtree.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/core/text.hpp"

namespace radial::plugins {

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

using text::number;

// The counts in coordinates y = x - mu_j centred on the old mean (the E-step's reference):
// b = C1_num - C1_den, g = C(y)_num - C(y)_den, a = S_num - S_den with S the centred scatter
// sum r (x - mu)^2. The update then never forms E[x^2] - mean^2.
struct Centred {
  double b = 0;
  std::vector<double> g, a;
};

Centred centred(const MixtureCounts& num, const MixtureCounts& den, std::size_t j) {
  const std::size_t d = num.cx.shape(1);
  Centred c;
  c.b = num.c1(j) - den.c1(j);
  c.g.resize(d);
  c.a.resize(d);
  for (std::size_t l = 0; l < d; ++l) {
    c.g[l] = num.cy(j, l) - den.cy(j, l);
    c.a[l] = num.scatter_diagonal(j, l) - den.scatter_diagonal(j, l);
  }
  return c;
}

// Smallest D for which C1 + D > 0 and every updated variance of Gaussian j is positive.
double minimum_d(const Centred& t, const Centres& c, std::size_t j) {
  double d_min = -t.b;
  for (std::size_t l = 0; l < c.dim(); ++l) {
    const double s2 = c.diagonal(j, l);
    // s2~ (b + D)^2 = s2 D^2 + (a + b s2) D + (a b - g^2)   (y coordinates: old mean 0)
    const double qb = t.a[l] + t.b * s2;
    const double qc = t.a[l] * t.b - t.g[l] * t.g[l];
    const double disc = qb * qb - 4.0 * s2 * qc;
    if (disc >= 0) d_min = std::max(d_min, (-qb + std::sqrt(disc)) / (2.0 * s2));
  }
  return d_min;
}

struct EbwSummary {
  std::size_t floored = 0;
  std::size_t weight_floored = 0;
  double mean_d = 0;
};

// The extended Baum-Welch M-step of fig. 2 with per-Gaussian D_jg.
EbwSummary ebw_step(const MixtureCounts& num, const MixtureCounts& den, const Centres& old,
                    double eta, double floor, std::size_t num_classes, Centres& out) {
  const std::size_t m = old.count(), d = old.dim();
  out = old;
  EbwSummary s;
  std::vector<double> dj(m);
  for (std::size_t j = 0; j < m; ++j) {
    if (num.c1(j) < 1e-10 && den.c1(j) < 1e-10) {
      dj[j] = 0;  // no row speaks for or against this Gaussian: it keeps its parameters
      continue;
    }
    const Centred t = centred(num, den, j);
    const double d_min = minimum_d(t, old, j);
    dj[j] = std::max(den.c1(j) / eta, 2.0 * d_min);
    if (!(dj[j] > 0)) dj[j] = std::max(1e-12, 2.0 * std::fabs(d_min));
    s.mean_d += dj[j] / double(m);
    const double denom = t.b + dj[j];
    for (std::size_t l = 0; l < d; ++l) {
      const double mu = old.means(j, l), s2 = old.diagonal(j, l);
      // Fig. 2 in y coordinates: mu~ - mu = g / (b + D), s2~ = (a + D s2) / (b + D) - (mu~ - mu)^2.
      const double shift = t.g[l] / denom;
      const double mu_new = mu + shift;
      double s2_new = (t.a[l] + dj[j] * s2) / denom - shift * shift;
      if (!(s2_new >= floor)) {
        s2_new = floor;
        ++s.floored;
      }
      out.means(j, l) = mu_new;
      out.diagonal(j, l) = s2_new;
    }
  }
  // Weights per class with one D_j (the weights of a class must share it to stay normalised).
  for (std::size_t k = 0; k < num_classes; ++k) {
    double d_class = 0, total = 0;
    for (std::size_t j = 0; j < m; ++j) {
      if (old.owner(j) != std::int64_t(k)) continue;
      d_class = std::max(d_class, dj[j]);
      const double w = old.mixing(j, k);
      if (w > 0) d_class = std::max(d_class, 2.0 * (den.c1(j) - num.c1(j)) / w);
      total += num.c1(j) - den.c1(j);
    }
    double sum = 0;
    for (std::size_t j = 0; j < m; ++j) {
      if (old.owner(j) != std::int64_t(k)) continue;
      double w = (num.c1(j) - den.c1(j) + d_class * old.mixing(j, k)) / (total + d_class);
      if (!(w >= 1e-8)) {
        w = 1e-8;
        ++s.weight_floored;
      }
      out.mixing(j, k) = w;
      sum += w;
    }
    for (std::size_t j = 0; j < m; ++j)
      if (old.owner(j) == std::int64_t(k)) out.mixing(j, k) /= sum;
  }
  return s;
}

void weights_of(const Centres& c, Vector& log_num, Vector& log_den) {
  const std::size_t m = c.count();
  log_num = Vector::from_shape({m});
  log_den = Vector::from_shape({m});
  for (std::size_t j = 0; j < m; ++j) {
    const auto k = std::size_t(c.owner(j));
    const double w = c.mixing(j, k);
    log_num(j) = log_or_minus_inf(w);
    log_den(j) = w > 0 && c.class_priors(k) > 0 ? std::log(w) + std::log(c.class_priors(k))
                                                : minus_inf;
  }
}

// What one DEM run did: its traces, counts and how it stopped, for its report.
struct DemRun {
  std::vector<double> trace_rd, trace_eta;
  std::size_t floored = 0, weight_floored = 0, fallback_rows = 0, rejected = 0, steps = 0;
  double mean_candidates = 0, best_rd = minus_inf, eta = 0;
  bool converged = false, stalled = false;
};

// The run's stop record, series, figures and warnings in ctx.report (`n`: every rank's rows).
void report_dem(const DemRun& run, const DemOptions& options, std::size_t n, FitContext& ctx) {
  ctx.report.iterations = run.steps;
  // What stopped DEM: the stopping rule, a learning rate too small to improve (a stall, not the
  // cap), or the cap.
  if (run.converged)
    ctx.report.stop(Termination::Converged,
                    "relative change of log R^d <= tolerance " + number(options.tolerance) +
                        " after " + std::to_string(run.steps) + " steps (log R^d = " +
                        number(run.best_rd) + ")");
  else if (run.stalled)
    ctx.report.stop(Termination::NoProgress,
                    "the learning rate fell below 1e-10 after " + std::to_string(run.steps) +
                        " steps without improving log R^d = " + number(run.best_rd));
  else
    ctx.report.stop(Termination::IterationCap,
                    "ran to the cap of " + std::to_string(options.iterations) +
                        " iterations (log R^d = " + number(run.best_rd) + ")");
  ctx.report.series["log_Rd"] = run.trace_rd;
  ctx.report.series["eta"] = run.trace_eta;
  ctx.report.figures["log_Rd"] = run.best_rd;
  ctx.report.figures["eta"] = run.eta;
  ctx.report.figures["rejected_steps"] = double(run.rejected);
  if (options.em.use_tree) ctx.report.figures["mean_candidates"] = run.mean_candidates;
  ctx.report.final_error = -run.best_rd / double(n);
  for (std::size_t i = 0; i < run.trace_rd.size(); ++i)
    ctx.report.curve.push_back({i, -run.trace_rd[i] / double(n), 0.0, 0.0});
  if (run.floored)
    ctx.warn("covariance-floor",
             std::to_string(run.floored) + " updated variance(s) fell below the floor " +
                 number(options.em.covariance_floor) + " and were raised to it",
             "centres.covariance_floor");
  if (run.weight_floored)
    ctx.warn("weight-floor",
             std::to_string(run.weight_floored) + " mixture weight(s) fell below 1e-8 and were raised",
             "centres.learning_rate (lower it)");
  if (run.fallback_rows)
    ctx.warn("kdtree-fallback",
             std::to_string(run.fallback_rows) +
                 " row evaluations found none of their class's Gaussians in their K-d tree "
                 "leaf; that class's Gaussians were evaluated for them",
             "centres.threshold (raise it)");
  if (run.stalled)
    ctx.warn("no-improving-step",
             "the learning rate fell below 1e-10 without improving log R^d = " + number(run.best_rd),
             "centres.learning_rate or centres.iterations");
  else if (!run.converged && options.tolerance > 0)
    ctx.warn("not-converged",
             "DEM stopped at the cap of " + std::to_string(options.iterations) +
                 " iterations; log R^d = " + number(run.best_rd),
             "centres.iterations (raise it) or centres.tolerance");
}

}  // namespace

Centres dem_refine(const Matrix& x, const Labels& classes, Centres start, const DemOptions& options,
                   FitContext& ctx) {
  if (start.shape != Shape::Diagonal || !start.has_mixing() || start.owner.size() != start.count() ||
      start.class_priors.size() == 0)
    throw ShapeError("the starting point must be per-class diagonal mixtures with "
                     "owners, mixing weights and class priors");
  // x holds this rank's rows when the data are sharded; sums run over every rank's.
  const std::size_t local_rows = x.shape(0), num_classes = start.class_priors.size();
  const std::size_t n = std::size_t(count_over_ranks(local_rows));
  // p = sum_n log P(y_n), the prior's share of log R^d (fig. 2, initialisation).
  double p = 0;
  for (std::size_t i = 0; i < local_rows; ++i)
    p += std::log(start.class_priors(std::size_t(classes(i))));
  p = sum_over_ranks(p);

  Centres current = std::move(start), best;
  MixtureCounts num, den, best_num, best_den;
  DemRun run;
  run.eta = options.learning_rate;
  EStepOptions eopt;
  eopt.block_rows = options.em.block_rows;
  eopt.threads = ctx.threads;  // results do not depend on it

  for (std::size_t i = 0;; ++i) {
    std::unique_ptr<GaussianBoxTree> tree;
    if (options.em.use_tree)
      tree = std::make_unique<GaussianBoxTree>(
          current, box_tree_sample(x, options.em.tree.sample_rows), options.em.tree);
    eopt.tree = tree.get();
    Vector log_num, log_den;
    weights_of(current, log_num, log_den);
    const DiscriminativeSummary s =
        e_step_discriminative(x, classes, current, log_num, log_den, eopt, num, den);
    const double rd = p + s.log_numerator - s.log_denominator;
    run.fallback_rows += s.fallback_rows;
    run.mean_candidates = s.mean_candidates;
    run.trace_rd.push_back(rd);
    if (i == 0) ctx.report.figures["log_Rd_em"] = rd;

    if (rd >= run.best_rd) {
      const bool small =
          i > 0 && std::fabs(rd - run.best_rd) <= options.tolerance * std::fabs(run.best_rd);
      if (i > 0) run.eta *= options.eta_grow;
      best = current;
      best_num = num;
      best_den = den;
      run.best_rd = rd;
      if (small && options.tolerance > 0) {
        run.converged = true;
        run.trace_eta.push_back(run.eta);
        break;
      }
    } else {
      run.eta *= options.eta_shrink;  // loss: undo the step, retry from the best iterate
      ++run.rejected;
    }
    run.trace_eta.push_back(run.eta);
    if (i == options.iterations) break;
    if (run.eta < 1e-10) {
      run.stalled = true;
      break;
    }
    const EbwSummary e = ebw_step(best_num, best_den, best, run.eta, options.em.covariance_floor,
                                  num_classes, current);
    run.floored += e.floored;
    run.weight_floored += e.weight_floored;
    ++run.steps;
  }

  report_dem(run, options, n, ctx);
  return best;
}

Centres DemLearner::fit(const Dataset& train, const KernelPrior*, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  if (train.task != Task::Classification || train.num_classes < 2)
    throw InputError("discriminative EM needs a classification target with at "
                     "least 2 classes");
  EmOptions em = options_.em;
  em.shape = Shape::Diagonal;
  em.threads = ctx.threads;  // E-steps over row blocks; results do not depend on it
  ClassMixtures mixtures = fit_class_mixtures(train.inputs, train.classes, train.num_classes,
                                              options_.count, em, ctx.rng, "centres dem");
  std::size_t em_iterations = 0, em_floored = 0;
  double em_log_likelihood = 0;
  for (const EmResult& r : mixtures.per_class) {
    em_iterations += r.iterations;
    em_floored += r.floored;
    em_log_likelihood += r.final_log_likelihood;
  }
  ctx.report.figures["em_iterations"] = double(em_iterations);
  ctx.report.figures["em_log_likelihood"] = em_log_likelihood;
  if (em_floored)
    ctx.warn("covariance-floor",
             "the per-class EM start raised " + std::to_string(em_floored) +
                 " variance(s) to the floor " + number(em.covariance_floor),
             "centres.covariance_floor");
  if (mixtures.kmeans_repairs)
    ctx.warn("empty-cluster",
             "k-means initialisation re-seeded " + std::to_string(mixtures.kmeans_repairs) +
                 " empty cluster(s)",
             "centres.count (use fewer Gaussians per class)");
  Centres out = dem_refine(train.inputs, train.classes, std::move(mixtures.centres), options_, ctx);
  ctx.report.seconds = seconds_since(start);
  out.check();
  return out;
}

}  // namespace radial::plugins
