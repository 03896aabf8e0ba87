// EM centres, pooled or per class; see gmm.hpp.
#include "gmm.hpp"

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial::plugins {

namespace {

using text::number;

// How one mixture's EM stopped, in words.
std::string stop_message(const EmResult& fit, const EmOptions& em) {
  if (fit.converged)
    return "relative change of the log-likelihood <= tolerance " + number(em.tolerance) +
           " after " + std::to_string(fit.iterations) + " iterations";
  return "EM ran to its cap of " + std::to_string(em.iterations) + " iterations" +
         (em.tolerance > 0 ? " with the relative change above tolerance " + number(em.tolerance)
                           : " (tolerance 0)");
}

// Records one mixture's EM run in the report; `label` names the mixture ("" or "class k").
// The fit converged when every mixture did; `stops` gathers each mixture's stop message.
void record(const EmResult& fit, const std::string& label, const EmOptions& em, FitContext& ctx,
            std::vector<std::string>& stops) {
  const std::string prefix = label.empty() ? "" : label + ": ";
  const std::string series = label.empty() ? "log_likelihood" : "log_likelihood." + label;
  ctx.report.series[series] = fit.log_likelihood;
  ctx.report.iterations += fit.iterations;
  if (!fit.converged) ctx.report.termination = Termination::IterationCap;
  stops.push_back(prefix + stop_message(fit, em));
  if (fit.floored)
    ctx.warn("covariance-floor",
             prefix + std::to_string(fit.floored) + " variance(s) were raised to the floor " +
                 number(em.covariance_floor) + "; first: " + fit.notes.front(),
             "centres.covariance_floor (lower it, or use fewer components)");
  if (fit.empty_repairs)
    ctx.warn("empty-component",
             prefix + std::to_string(fit.empty_repairs) +
                 " component(s) lost all responsibility and were reseeded at the "
                 "worst-explained rows",
             "centres.count (use fewer components)");
  if (fit.fallback_rows)
    ctx.warn("kdtree-fallback",
             prefix + std::to_string(fit.fallback_rows) +
                 " row evaluations found no Gaussian in their K-d tree leaf; all Gaussians were "
                 "evaluated for them",
             "centres.threshold (raise it)");
  for (std::size_t i = 1; i < fit.log_likelihood.size(); ++i) {
    const double drop = fit.log_likelihood[i - 1] - fit.log_likelihood[i];
    if (drop > 1e-9 * std::fabs(fit.log_likelihood[i - 1])) {
      ctx.warn("likelihood-decrease",
               prefix + "the log-likelihood fell from " + number(fit.log_likelihood[i - 1]) +
                   " to " + number(fit.log_likelihood[i]) + " at iteration " + std::to_string(i) +
                   (em.use_tree ? " (K-d tree approximation)" : " (after a guard fired)"),
               em.use_tree ? "centres.threshold (raise it) or centres.kdtree = false"
                           : "centres.covariance_floor");
      break;
    }
  }
  if (!fit.converged && em.tolerance > 0)
    ctx.warn("not-converged",
             prefix + "EM stopped at the cap of " + std::to_string(em.iterations) +
                 " iterations with relative change above " + number(em.tolerance),
             "centres.iterations (raise it) or centres.tolerance");
  if (em.use_tree) ctx.report.figures[label.empty() ? "mean_candidates" : "mean_candidates." + label] =
      fit.mean_candidates;
}

}  // namespace

Centres GmmLearner::fit(const Dataset& train, const KernelPrior*, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const Matrix& x = train.inputs;  // this rank's rows when the data are sharded
  const std::size_t rows = std::size_t(count_over_ranks(train.rows()));
  if (rows == 0) throw InputError("the training set has no rows");
  ctx.report.iterations = 0;
  ctx.report.termination = Termination::Converged;
  std::vector<std::string> stops;
  std::size_t repairs = 0;
  Centres centres;
  double log_likelihood = 0;

  EmOptions em = options_.em;
  em.threads = ctx.threads;  // E-steps over row blocks; results do not depend on it

  if (options_.mode == "pooled") {
    if (rows < options_.count)
      throw InputError(std::to_string(rows) +
                       " training rows are fewer than count = " + std::to_string(options_.count) +
                       " components; lower centres.count");
    EmResult fit = em_mixture_kmeans(x, options_.count, em, ctx.rng, &repairs);
    record(fit, "", em, ctx, stops);
    log_likelihood = fit.final_log_likelihood;
    centres = std::move(fit.components);
    ctx.report.figures["weights_min"] = xt::amin(fit.weights)();
  } else if (options_.mode == "per-class") {
    if (train.task != Task::Classification || train.num_classes == 0)
      throw InputError("mode = \"per-class\" needs a classification target; use "
                       "mode = \"pooled\" for regression");
    ClassMixtures mixtures = fit_class_mixtures(x, train.classes, train.num_classes,
                                                options_.count, em, ctx.rng,
                                                "centres gmm");
    repairs = mixtures.kmeans_repairs;
    for (std::size_t k = 0; k < mixtures.per_class.size(); ++k) {
      record(mixtures.per_class[k], "class" + std::to_string(k), em, ctx, stops);
      log_likelihood += mixtures.per_class[k].final_log_likelihood;
    }
    centres = std::move(mixtures.centres);
  } else {
    throw ParameterError("mode = \"" + options_.mode +
                         "\". Violated constraint: mode is one of pooled, per-class");
  }
  if (repairs)
    ctx.warn("empty-cluster",
             "k-means initialisation re-seeded " + std::to_string(repairs) + " empty cluster(s)",
             "centres.count (use fewer components)");
  std::string how;
  for (const std::string& s : stops) how += (how.empty() ? "" : "; ") + s;
  ctx.report.stop(ctx.report.termination, how);
  ctx.report.figures["log_likelihood"] = log_likelihood;
  ctx.report.final_error = -log_likelihood / double(rows);
  ctx.report.seconds = seconds_since(start);
  centres.check();
  return centres;
}

}  // namespace radial::plugins
