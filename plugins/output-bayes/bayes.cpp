// The Bayes posterior output; see bayes.hpp.
#include "bayes.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "radial/network/basis.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/numerics/gaussian.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/core/text.hpp"

namespace radial::plugins {

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();
constexpr std::size_t kBlock = 512;
// The floor of the framework's metrics (cross-entropy): a row whose own-class posterior
// underflows counts as log 1e-300 instead of -inf.
constexpr double kProbabilityFloor = 1e-300;

std::string number(double v) { return text::number(v); }

// The framework's prediction rule of the bayes link: the posterior the network will compute
// from the stored weights, applied here to the training rows' log-densities.
const PredictionRule& posterior_rule() {
  const PredictionRule* rule = find_prediction_rule(to_string(Link::Bayes));
  if (!rule) throw Error("the framework's prediction rule 'bayes' is not registered");
  return *rule;
}

}  // namespace

Matrix bayes_log_posterior(const Matrix& x, const Centres& centres, const BayesOptions& options,
                           const Labels* classes, BayesFigures* figures) {
  const std::size_t n = x.shape(0), m = centres.count(), d = centres.dim();
  // The weights the bayes prediction rule reads: log pi_jk, then log P(C_k) in the last row.
  const Matrix w = mixture_posterior_weights(centres);
  const std::size_t k = w.shape(1);
  const PredictionRule& rule = posterior_rule();

  std::unique_ptr<GaussianBoxTree> tree;
  std::unique_ptr<TreeLogDensity> sparse;
  std::unique_ptr<GaussianLogDensity> dense;
  if (options.use_tree) {
    // Splits chosen on the same rows on every rank (all ranks' rows, sampled).
    tree = std::make_unique<GaussianBoxTree>(
        centres, box_tree_sample(x, options.tree.sample_rows), options.tree);
    sparse = std::make_unique<TreeLogDensity>(centres, tree.get());
  } else {
    dense = std::make_unique<GaussianLogDensity>(centres);
  }

  Matrix out = Matrix::from_shape({n, k});
  Matrix xb, logn, posterior;
  double log_posterior = 0, wrong = 0, evaluated = 0, fallback_rows = 0;
  std::exception_ptr failure;
  try {
    for (std::size_t first = 0; first < n; first += kBlock) {
      const std::size_t rows = std::min(kBlock, n - first);
      xb.resize({rows, d});
      std::memcpy(xb.data(), x.data() + first * d, rows * d * sizeof(double));
      if (sparse) {
        sparse->compute_dense(xb, logn);
        for (std::size_t r = 0; r < rows; ++r) {
          // Gaussians outside the leaf count as 0 (section III-C). When the leaf holds none of
          // the row's own class (or nothing at all without labels), that class's Gaussians (all
          // of them) are evaluated for the row, so log p(C_y|x) stays finite.
          std::size_t live = 0, own = 0;
          const std::int64_t y = classes ? (*classes)(first + r) : -1;
          for (std::size_t j = 0; j < m; ++j)
            if (logn(r, j) != minus_inf) {
              ++live;
              if (y >= 0 && centres.mixing(j, std::size_t(y)) > 0) ++own;
            }
          evaluated += double(live);
          if (live == 0 || (y >= 0 && own == 0)) {
            fallback_rows += 1;
            for (std::size_t j = 0; j < m; ++j)
              if (logn(r, j) == minus_inf && (y < 0 || centres.mixing(j, std::size_t(y)) > 0)) {
                logn(r, j) = sparse->log_density(&xb(r, 0), j);
                evaluated += 1;
              }
          }
        }
      } else {
        dense->compute(xb, logn);
        evaluated += double(rows * m);
      }
      // p(C_k | x) by the rule the network applies to the stored weights.
      rule.predict(logn, w, posterior);
      for (std::size_t r = 0; r < rows; ++r) {
        std::size_t best = 0;
        for (std::size_t c = 0; c < k; ++c) {
          out(first + r, c) = std::log(posterior(r, c));
          if (posterior(r, c) > posterior(r, best)) best = c;
        }
        if (classes) {
          const auto y = std::size_t((*classes)(first + r));
          log_posterior += std::log(std::max(posterior(r, y), kProbabilityFloor));
          wrong += best != y ? 1.0 : 0.0;
        }
      }
    }
  } catch (...) {
    failure = std::current_exception();
  }
  // The figures of all ranks' rows: one rank-ordered sum (counts are exact in doubles).
  std::vector<double> packed{log_posterior, wrong, evaluated, fallback_rows, double(n)};
  sum_pass_over_ranks(packed, failure);
  const double rows = packed[4];
  BayesFigures f;
  f.log_posterior = packed[0];
  f.error_rate = rows > 0 ? packed[1] / rows : 0.0;
  f.mean_candidates = rows > 0 ? packed[2] / rows : 0.0;
  f.fallback_rows = std::size_t(packed[3]);
  if (figures) *figures = f;
  return out;
}

OutputWeights BayesOutput::fit(const TrainingProblem& problem, const WeightPenalty*,
                               FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const Centres& c = problem.centres;
  const Dataset& data = problem.data;
  // The checks read this rank's rows too (the design's): agreed, so every rank stops together.
  agreed([&] {
    // The posterior is read on the inputs, but a design matrix of other rows is a caller's error.
    if (problem.design.rows() != data.rows())
      throw ShapeError("the design matrix has " +
                       std::to_string(problem.design.rows()) + " rows but the data have " +
                       std::to_string(data.rows()));
    if (data.task != Task::Classification || data.num_classes == 0)
      throw InputError("the Bayes posterior needs a classification target; use "
                       "output.plugin = \"least-squares\" for regression");
    if (!c.has_mixing() || c.class_priors.size() == 0)
      throw InputError("the centres carry no " +
                       std::string(!c.has_mixing() ? "mixing weights pi_jk"
                                                   : "class priors P(C_k)") +
                       "; the Bayes output needs class-conditional mixtures: use centres.plugin = "
                       "\"gmm\" with mode = \"per-class\", \"dem\" or \"prbf\"");
    c.check();
    if (c.mixing.shape(1) != data.num_classes)
      throw ShapeError("the centres' mixing weights cover " +
                       std::to_string(c.mixing.shape(1)) + " classes but the training data have " +
                       std::to_string(data.num_classes));
    if (c.shape == Shape::None)
      throw InputError("the centres have no shapes, so p(x|j) is undefined; use a "
                       "Gaussian centre learner (gmm, dem, prbf)");
    if (!problem.basis.has_log_map())
      throw InputError("the basis has no log map, so the network cannot compute "
                       "log p(x|j); use basis.plugin = \"gaussian\" with density = true");
  });

  // The network will use the basis' log map as log p(x|j): check it on the first 64 rows of the
  // training data (of all ranks': this rank checks those of its rows, the worst is agreed).
  {
    const ShardLayout layout = shard_layout(data.rows());
    const std::size_t rows =
        layout.first >= 64 ? 0 : std::min<std::size_t>(data.rows(), 64 - layout.first);
    const std::size_t d = c.dim();
    double worst = 0;
    if (rows > 0) {
      Matrix xb = Matrix::from_shape({rows, d});
      std::memcpy(xb.data(), data.inputs.data(), rows * d * sizeof(double));
      Matrix from_basis, reference;
      SquaredDistances(c, problem.basis.metric()).compute(xb, from_basis);
      problem.basis.log_map(from_basis);
      GaussianLogDensity(c).compute(xb, reference);
      for (std::size_t i = 0; i < reference.size(); ++i)
        worst = std::max(worst, std::fabs(from_basis.data()[i] - reference.data()[i]));
    }
    worst = max_over_ranks(worst);
    if (!(worst <= 1e-6 * (1.0 + double(d))))
      ctx.warn("basis-not-density",
               "the basis' log map differs from log N(x | c_j, S_j) by up to " + number(worst) +
                   ", so predictions will not be the mixtures' posterior",
               "basis.plugin = \"gaussian\" with density = true and width = 0");
  }

  BayesFigures f;
  // Rows with missing cells: every Gaussian's marginal density, evaluated directly.
  BayesOptions options = options_;
  if (has_missing(data.inputs)) options.use_tree = false;
  bayes_log_posterior(data.inputs, c, options, &data.classes, &f);
  ctx.report.iterations = 0;
  ctx.report.stop(Termination::Converged,
                  "the mixtures' posterior in closed form from the centres (not iterated)");
  ctx.report.figures["log_posterior"] = f.log_posterior;
  ctx.report.figures["train_error"] = f.error_rate;
  const std::size_t rows = std::size_t(count_over_ranks(data.rows()));
  ctx.report.final_error = -f.log_posterior / double(rows);
  if (options_.use_tree) ctx.report.figures["mean_candidates"] = f.mean_candidates;
  if (f.fallback_rows)
    ctx.warn("kdtree-fallback",
             std::to_string(f.fallback_rows) +
                 " rows found no Gaussian in their K-d tree leaf; all were evaluated for them",
             "output.threshold (raise it)");
  ctx.report.seconds = seconds_since(start);
  return OutputWeights{mixture_posterior_weights(c), Link::Bayes};
}

}  // namespace radial::plugins
