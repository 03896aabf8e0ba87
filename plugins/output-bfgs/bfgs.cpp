// BFGS with the framework's strong Wolfe line search (see bfgs.hpp).
#include "bfgs.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "radial/glm/flops.hpp"
#include "radial/optim/line_search.hpp"
#include "radial/optim/quasi_newton.hpp"
#include "radial/glm/training.hpp"
#include "radial/glm/vectors.hpp"

namespace radial::plugins {

Matrix bfgs(glm::Objective& objective, const BfgsOptions& options, FitContext& ctx) {
  Matrix x = glm::start_weights(options.start, objective);
  const std::size_t p = objective.size();
  const glm::StoppingRule rule{options.tolerance, options.iterations};
  glm::Trace trace(ctx, objective, bfgs_id);

  Matrix g;
  double f = objective.gradient(x, g);
  trace.record(0, f);
  Matrix h = xt::eye<double>(p);  // inverse Hessian approximation
  bool fresh = true;              // h is the (scaled) identity, never updated
  std::size_t resets = 0;
  std::optional<glm::Stop> stop;  // empty: the iteration cap
  std::size_t iteration = 0;
  Vector hy = xt::zeros<double>({p});
  while (iteration < rule.iterations) {
    // Direction d = -H g.
    Matrix d = xt::zeros<double>({x.shape(0), x.shape(1)});
    for (std::size_t i = 0; i < p; ++i) {
      double v = 0;
      for (std::size_t j = 0; j < p; ++j) v += h(i, j) * g.data()[j];
      d.data()[i] = -v;
    }
    objective.add_flops(glm::flops::symv(p));
    double slope = glm::dot(g, d);
    if (!(slope < 0)) {
      if (glm::max_abs(g) == 0) {
        stop = glm::Stop{Termination::Converged,
                         "zero gradient at iteration " + std::to_string(iteration)};
        break;
      }
      h = xt::eye<double>(p);
      fresh = true;
      d = -g;
      slope = glm::dot(g, d);
    }
    glm::LineSample start;
    start.value = f;
    start.slope = slope;
    // First step of a fresh (identity) metric is scaled so that it moves at most 1 per weight.
    const double first = fresh ? std::min(1.0, 1.0 / glm::max_abs(g)) : 1.0;
    glm::LineFunction line(objective, x, d, options.line_search.max_evaluations);
    glm::LineSample next;
    if (!glm::wolfe_line_search(line, start, first, options.line_search, next)) {
      if (!fresh) {
        ++resets;
        h = xt::eye<double>(p);
        fresh = true;
        continue;
      }
      std::ostringstream m;
      m << "the line search found no decrease along steepest descent at iteration "
        << iteration << " (error " << f << ")";
      ctx.warn("line-search", m.str(), "output.tolerance");
      stop = glm::Stop{Termination::NoProgress, m.str()};
      break;
    }
    ++iteration;
    const Matrix s = next.weights - x;
    const Matrix y = next.gradient - g;
    const bool done = rule.satisfied(next.weights, x, next.value, f);
    x = std::move(next.weights);
    f = next.value;
    g = std::move(next.gradient);
    trace.record(iteration, f);
    if (done) {
      stop = glm::Stop{Termination::Converged, rule.met_at(iteration)};
      break;
    }
    // BFGS update of the inverse Hessian (Nocedal & Wright eq. 6.17), skipped when the
    // curvature condition s.y > 0 fails numerically.
    const double sy = glm::dot(s, y);
    const double yy = glm::dot(y, y);
    objective.add_flops(2 * glm::flops::dot(p));
    if (sy > 1e-10 * std::sqrt(glm::dot(s, s) * yy)) {
      if (fresh) {
        h *= sy / yy;  // eq. 6.20: scale the identity before the first update
        fresh = false;
      }
      glm::bfgs_inverse_update(h, s, y, sy, hy);
      objective.add_flops(glm::flops::bfgs_update(p));
    }
  }
  ctx.report.figures["metric_resets"] = double(resets);
  trace.finish(iteration, stop, x, f, rule.iterations);
  return x;
}

WorkingMemory bfgs_memory(std::size_t rows, std::size_t centres, std::size_t outputs) {
  const double weights = double(outputs) * (double(centres) + 1.0);
  return glm::trainer_memory(rows, centres, outputs, 2.0 * weights * weights,
                             "the inverse Hessian estimate, 2 (K (M + 1))^2 doubles",
                             ", or output plugin \"scg\"");
}

}  // namespace radial::plugins
