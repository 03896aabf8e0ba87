// Wolfe and Armijo line searches (radial/optim/line_search.hpp).
#include "radial/optim/line_search.hpp"

#include <algorithm>
#include <cmath>

#include "radial/glm/flops.hpp"
#include "radial/glm/vectors.hpp"

namespace radial::glm {

namespace {

// Minimiser of the cubic through (a, fa, da) and (b, fb, db), kept inside [lo + 10%, hi - 10%]
// of the bracket; bisection when the cubic has no real minimiser.
double cubic_step(const LineSample& a, const LineSample& b) {
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

}  // namespace

LineFunction::LineFunction(Objective& objective, const Matrix& x, const Matrix& d,
                           std::size_t budget)
    : objective_(&objective), x_(x), d_(d), budget_(budget) {}

LineFunction::LineFunction(GradientAt gradient_at, const Matrix& x, const Matrix& d,
                           std::size_t budget)
    : gradient_at_(std::move(gradient_at)), x_(x), d_(d), budget_(budget) {}

LineSample LineFunction::at(double a) {
  LineSample pt;
  pt.step = a;
  pt.weights = axpy(a, d_, x_);
  if (objective_) {
    pt.value = objective_->gradient(pt.weights, pt.gradient);
    objective_->add_flops(flops::axpy(x_.size()) + flops::dot(x_.size()));
  } else {
    pt.value = gradient_at_(pt.weights, pt.gradient);
  }
  pt.slope = dot(pt.gradient, d_);
  ++used_;
  return pt;
}

bool wolfe_line_search(LineFunction& line, const LineSample& start, double first_step,
                       const WolfeOptions& options, LineSample& out) {
  const double c1 = options.sufficient_decrease, c2 = options.curvature;
  const double f0 = start.value, g0 = start.slope;
  LineSample prev = start;
  double a = first_step;
  auto armijo = [&](const LineSample& p) { return p.value <= f0 + c1 * p.step * g0; };
  auto zoom = [&](LineSample lo, LineSample hi) {
    LineSample best = lo;
    while (!line.exhausted()) {
      const LineSample p = line.at(cubic_step(lo, hi));
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
    const LineSample p = line.at(a);
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

bool armijo_acceptable(double error_new, double error, double step, double slope,
                       const ArmijoOptions& options) {
  if (!std::isfinite(error_new)) return false;
  const double rounding = options.rounding * std::max(1.0, std::fabs(error));
  return error_new <= error + options.sufficient_decrease * step * slope ||
         std::fabs(error_new - error) <= rounding;
}

ArmijoResult armijo_backtracking(double error, double slope, double full_step_value,
                                 const std::function<double(double)>& value_at,
                                 const ArmijoOptions& options) {
  ArmijoResult r;
  r.value = full_step_value;
  while (!armijo_acceptable(r.value, error, r.step, slope, options) &&
         r.halvings < options.max_halvings) {
    r.step *= 0.5;
    ++r.halvings;
    r.value = value_at(r.step);
  }
  r.accepted = armijo_acceptable(r.value, error, r.step, slope, options);
  return r;
}

}  // namespace radial::glm
