#pragma once
// The steps the refine minimisers share (lbfgs.cpp; minimisers.cpp: BFGS, SCG): the start, an
// accepted iteration, the stopping rule and the Wolfe line search along a direction.

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "radial/optim/line_search.hpp"
#include "radial/optim/lbfgs.hpp"
#include "vector_ops.hpp"

namespace radial::refine::detail {

// The paper's stopping rule (both changes below the tolerance), as L-BFGS.
inline bool settled(const Vector& step, double change, double tolerance) {
  return max_abs(step) < tolerance && std::fabs(change) < tolerance;
}

// The start: out.x, E there, its gradient, the first curve point; false when E or the gradient
// is not finite.
inline bool begin(const GradientFunction& f, const LbfgsOptions& options, Vector start,
                  MinimiseResult& out, Vector& g) {
  out.x = std::move(start);
  out.value = f(out.x, g);
  out.evaluations = 1;
  out.curve.push_back(out.value);
  if (options.on_iteration) options.on_iteration(0, out.value);
  if (!std::isfinite(out.value) || !all_finite(g)) {
    out.termination = Termination::NumericalFailure;
    return false;
  }
  return true;
}

// Records an accepted iteration; false when keep_going stops the minimiser there.
inline bool accept(MinimiseResult& out, const LbfgsOptions& options, std::size_t iteration) {
  out.iterations = iteration;
  out.curve.push_back(out.value);
  if (options.on_iteration) options.on_iteration(iteration, out.value);
  if (options.keep_going && !options.keep_going(iteration, out.x)) {
    out.stopped = true;
    out.termination = Termination::Converged;
    return false;
  }
  return true;
}

// The Wolfe line search from out.x (E = out.value, gradient g) along d, whose slope g.d is
// `slope`, each evaluation counted in out.evaluations; false when it finds no step.
inline bool wolfe_search(const GradientFunction& f, MinimiseResult& out, const Vector& g,
                         const Vector& d, double slope, glm::LineSample& next) {
  const auto line_gradient = [&](const Matrix& w, Matrix& grad) {
    Vector gv;
    const double e = f(as_vector(w), gv);
    grad = as_column(gv);
    ++out.evaluations;
    return e;
  };
  const Matrix x_col = as_column(out.x), d_col = as_column(d);
  glm::LineFunction line(line_gradient, x_col, d_col, 25);
  glm::LineSample at_zero;
  at_zero.value = out.value;
  at_zero.slope = slope;
  at_zero.weights = x_col;
  at_zero.gradient = as_column(g);
  return glm::wolfe_line_search(line, at_zero, 1.0, glm::WolfeOptions{}, next);
}

// Moves to the line search's point `next` (out.x, out.value and the gradient g) and records the
// iteration; s is the step and y the gradient's change. False when the minimiser stops there:
// E or the gradient not finite (NumericalFailure), or keep_going said so.
inline bool step_to(const glm::LineSample& next, const LbfgsOptions& options,
                    std::size_t iteration, MinimiseResult& out, Vector& g, Vector& s, Vector& y) {
  Vector x_new = as_vector(next.weights), g_new = as_vector(next.gradient);
  if (!std::isfinite(next.value) || !all_finite(g_new)) {
    out.termination = Termination::NumericalFailure;
    return false;
  }
  s = x_new - out.x;
  y = g_new - g;
  out.x = std::move(x_new);
  g = std::move(g_new);
  out.value = next.value;
  if (!accept(out, options, iteration)) {
    out.gradient_max = max_abs(g);
    return false;
  }
  return true;
}

// The result with its termination and the largest gradient component at the end.
inline MinimiseResult ended(MinimiseResult out, Termination termination, const Vector& g) {
  out.termination = termination;
  out.gradient_max = max_abs(g);
  return out;
}

// When no step lowers E: converged if out.gradient_max is at rounding's level (sqrt(epsilon)
// relative to E), else no progress.
inline Termination stalled(const MinimiseResult& out) {
  const double floor =
      std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, std::fabs(out.value));
  return out.gradient_max <= floor ? Termination::Converged : Termination::NoProgress;
}

}  // namespace radial::refine::detail
