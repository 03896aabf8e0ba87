// BFGS with a strong Wolfe line search (see bfgs.hpp).
#include "bfgs.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "radial/glm/flops.hpp"
#include "radial/glm/training.hpp"

namespace radial::plugins {

namespace {

constexpr const char* component = "bfgs";
constexpr double c1 = 1e-4;  // sufficient decrease (Armijo)
constexpr double c2 = 0.1;   // curvature: a near-exact search, as NETLAB's line minimisation

double dot(const Matrix& a, const Matrix& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a.data()[i] * b.data()[i];
  return s;
}

struct Point {
  double step = 0, value = 0, slope = 0;
  Matrix weights, gradient;
};

// phi(a) = E(x + a d) and phi'(a) = grad E . d, one pass over the rows for both.
class LineFunction {
 public:
  LineFunction(glm::Objective& objective, const Matrix& x, const Matrix& d, std::size_t budget)
      : objective_(objective), x_(x), d_(d), budget_(budget) {}
  Point at(double a) {
    Point pt;
    pt.step = a;
    pt.weights = x_ + a * d_;
    pt.value = objective_.gradient(pt.weights, pt.gradient);
    pt.slope = dot(pt.gradient, d_);
    objective_.add_flops(glm::flops::axpy(x_.size()) + glm::flops::dot(x_.size()));
    ++used_;
    return pt;
  }
  bool exhausted() const { return used_ >= budget_; }

 private:
  glm::Objective& objective_;
  const Matrix& x_;
  const Matrix& d_;
  std::size_t budget_, used_ = 0;
};

// Minimiser of the cubic through (a, fa, da) and (b, fb, db), kept inside [lo + 10%, hi - 10%]
// of the bracket; bisection when the cubic has no real minimiser.
double cubic_step(const Point& a, const Point& b) {
  const double lo = std::min(a.step, b.step), hi = std::max(a.step, b.step);
  const double d1 = a.slope + b.slope - 3 * (a.value - b.value) / (a.step - b.step);
  const double disc = d1 * d1 - a.slope * b.slope;
  double t = 0.5 * (lo + hi);
  if (disc >= 0) {
    const double d2 = std::copysign(std::sqrt(disc), b.step - a.step);
    const double denom = b.slope - a.slope + 2 * d2;
    if (denom != 0) t = b.step - (b.step - a.step) * (b.slope + d2 - d1) / denom;
  }
  const double margin = 0.1 * (hi - lo);
  if (!std::isfinite(t) || t < lo + margin || t > hi - margin) t = 0.5 * (lo + hi);
  return t;
}

// Strong Wolfe line search (Nocedal & Wright, algorithms 3.5 and 3.6). Returns false when no
// point with sufficient decrease was found within the evaluation budget.
bool line_search(LineFunction& line, const Point& start, double first_step, Point& out) {
  const double f0 = start.value, g0 = start.slope;
  Point prev = start;
  double a = first_step;
  auto armijo = [&](const Point& p) { return p.value <= f0 + c1 * p.step * g0; };
  auto zoom = [&](Point lo, Point hi) {
    Point best = lo;
    while (!line.exhausted()) {
      const Point p = line.at(cubic_step(lo, hi));
      if (!std::isfinite(p.value) || !armijo(p) || p.value >= lo.value) {
        hi = p;
      } else {
        if (std::fabs(p.slope) <= -c2 * g0) {
          out = p;
          return true;
        }
        if (p.slope * (hi.step - lo.step) >= 0) hi = lo;
        lo = p;
        best = p;
      }
      if (std::fabs(hi.step - lo.step) < 1e-14 * std::max(1.0, lo.step)) break;
    }
    // Out of budget: accept the best point with sufficient decrease, if any.
    if (best.step > 0) {
      out = best;
      return true;
    }
    return false;
  };
  for (std::size_t i = 0; !line.exhausted(); ++i) {
    const Point p = line.at(a);
    if (!std::isfinite(p.value) || !armijo(p) || (i > 0 && p.value >= prev.value))
      return zoom(prev, p);
    if (std::fabs(p.slope) <= -c2 * g0) {
      out = p;
      return true;
    }
    if (p.slope >= 0) return zoom(p, prev);
    prev = p;
    a *= 2;
  }
  if (prev.step > 0) {
    out = prev;
    return true;
  }
  return false;
}

}  // namespace

Matrix bfgs(glm::Objective& objective, Matrix x, const BfgsOptions& options, FitContext& ctx) {
  const std::size_t p = objective.size();
  const glm::StoppingRule rule{options.tolerance, options.iterations};
  glm::Trace trace(ctx, objective, component);

  Matrix g;
  double f = objective.gradient(x, g);
  trace.record(0, f);
  Matrix h = xt::eye<double>(p);  // inverse Hessian approximation
  bool fresh = true;              // h is the (scaled) identity, never updated
  bool converged = false;
  std::size_t resets = 0;
  std::string stop;
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
    double slope = dot(g, d);
    if (!(slope < 0)) {
      if (glm::max_abs(g) == 0) {
        converged = true;
        stop = "zero-gradient";
        break;
      }
      h = xt::eye<double>(p);
      fresh = true;
      d = -g;
      slope = dot(g, d);
    }
    Point start;
    start.value = f;
    start.slope = slope;
    // First step of a fresh (identity) metric is scaled so that it moves at most 1 per weight.
    const double first = fresh ? std::min(1.0, 1.0 / glm::max_abs(g)) : 1.0;
    LineFunction line(objective, x, d, options.line_search_evaluations);
    Point next;
    if (!line_search(line, start, first, next)) {
      if (!fresh) {
        ++resets;
        h = xt::eye<double>(p);
        fresh = true;
        continue;
      }
      std::ostringstream m;
      m << "the line search found no decrease along steepest descent at iteration "
        << iteration << " (error " << f << ")";
      ctx.warn(component, "line-search", m.str(), "output.tolerance");
      stop = "line-search";
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
      converged = true;
      stop = "tolerance";
      break;
    }
    // BFGS update of the inverse Hessian (Nocedal & Wright eq. 6.17), skipped when the
    // curvature condition s.y > 0 fails numerically.
    const double sy = dot(s, y);
    const double yy = dot(y, y);
    objective.add_flops(2 * glm::flops::dot(p));
    if (sy > 1e-10 * std::sqrt(dot(s, s) * yy)) {
      if (fresh) {
        h *= sy / yy;  // eq. 6.20: scale the identity before the first update
        fresh = false;
      }
      for (std::size_t i = 0; i < p; ++i) {
        double v = 0;
        for (std::size_t j = 0; j < p; ++j) v += h(i, j) * y.data()[j];
        hy(i) = v;
      }
      double yhy = 0;
      for (std::size_t i = 0; i < p; ++i) yhy += y.data()[i] * hy(i);
      const double a = (sy + yhy) / (sy * sy);
      for (std::size_t i = 0; i < p; ++i)
        for (std::size_t j = 0; j < p; ++j)
          h(i, j) += a * s.data()[i] * s.data()[j] -
                     (hy(i) * s.data()[j] + s.data()[i] * hy(j)) / sy;
      objective.add_flops(glm::flops::bfgs_update(p));
    }
  }
  if (stop.empty()) glm::warn_iteration_cap(ctx, component, rule.iterations, f);
  if (glm::looks_separable(objective, f))
    glm::warn_separable(ctx, component, f, glm::max_abs(x), iteration);
  ctx.report.figures["metric_resets"] = double(resets);
  glm::report_final_figures(ctx, objective, x);
  trace.finish(iteration, converged, f);
  return x;
}

OutputWeights Bfgs::fit(const TrainingProblem& problem, const Regularizer* penalty,
                        FitContext& ctx) {
  return glm::fit_output_weights(problem, penalty, options_.link, component,
                                 [&](glm::Objective& objective) {
                                   return bfgs(objective,
                                               glm::start_weights(options_.start, objective),
                                               options_, ctx);
                                 });
}

BfgsOptions bfgs_options(const Params& params) {
  BfgsOptions o;
  o.link = params.string("link");
  o.iterations = std::size_t(params.integer("iterations"));
  o.tolerance = params.real("tolerance");
  o.start = params.string("start");
  return o;
}

}  // namespace radial::plugins
