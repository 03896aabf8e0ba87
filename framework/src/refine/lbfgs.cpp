// Limited-memory BFGS (radial/refine/lbfgs.hpp).
#include "radial/refine/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "radial/glm/line_search.hpp"
#include "vector_ops.hpp"

namespace radial::refine {

namespace {

using namespace detail;  // the shared vector helpers (vector_ops.hpp)

}  // namespace

MinimiseResult minimise_lbfgs(const GradientFunction& f, Vector start,
                              const LbfgsOptions& options) {
  MinimiseResult out;
  out.x = std::move(start);
  Vector g;
  out.value = f(out.x, g);
  out.evaluations = 1;
  out.curve.push_back(out.value);
  if (options.on_iteration) options.on_iteration(0, out.value);
  if (!std::isfinite(out.value) || !finite(g)) {
    out.termination = Termination::NumericalFailure;
    return out;
  }
  struct Pair {
    Vector s, y;
    double rho;
  };
  std::deque<Pair> pairs;
  const auto line_gradient = [&](const Matrix& w, Matrix& grad) {
    Vector gv;
    const double e = f(as_vector(w), gv);
    grad = as_column(gv);
    ++out.evaluations;
    return e;
  };
  for (std::size_t it = 0; it < options.iterations; ++it) {
    if (std::all_of(g.begin(), g.end(), [](double v) { return v == 0; })) {
      out.termination = Termination::Converged;
      return out;
    }
    // Two-loop recursion: d = -H g with H from the stored pairs, H0 = gamma I
    // (gamma = s.y / y.y of the newest pair; algorithm 7.4, eq. 7.20).
    Vector q = g;
    std::vector<double> alpha(pairs.size());
    for (std::size_t i = pairs.size(); i-- > 0;) {
      alpha[i] = pairs[i].rho * dot(pairs[i].s, q);
      q -= alpha[i] * pairs[i].y;
    }
    if (!pairs.empty()) {
      const Pair& p = pairs.back();
      q *= dot(p.s, p.y) / dot(p.y, p.y);
    } else {
      // The first direction scaled to length 1 (no curvature known yet).
      const double norm = std::sqrt(dot(q, q));
      if (norm > 0) q /= norm;
    }
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const double beta = pairs[i].rho * dot(pairs[i].y, q);
      q += (alpha[i] - beta) * pairs[i].s;
    }
    Vector d = -q;
    double slope = dot(g, d);
    if (!(slope < 0)) {  // lost descent (rounding): restart from steepest descent
      pairs.clear();
      d = -g / std::sqrt(dot(g, g));
      slope = dot(g, d);
    }
    const Matrix x_col = as_column(out.x), d_col = as_column(d);
    glm::LineFunction line(line_gradient, x_col, d_col, 25);
    glm::LineSample at_zero;
    at_zero.step = 0;
    at_zero.value = out.value;
    at_zero.slope = slope;
    at_zero.weights = x_col;
    at_zero.gradient = as_column(g);
    glm::LineSample next;
    if (!glm::wolfe_line_search(line, at_zero, 1.0, glm::WolfeOptions{}, next)) {
      // Stale curvature pairs can give a poor direction: once, forget them and search along
      // the steepest descent. No progress is reported only when that fails too.
      if (pairs.empty()) {
        // At a minimum to rounding no step can lower E: converged when the gradient is that
        // small (sqrt(epsilon) relative to E), else no progress.
        out.gradient_max = largest(g);
        const double floor = std::sqrt(std::numeric_limits<double>::epsilon()) *
                             std::max(1.0, std::fabs(out.value));
        out.termination =
            out.gradient_max <= floor ? Termination::Converged : Termination::NoProgress;
        return out;
      }
      pairs.clear();
      --it;
      continue;
    }
    Vector x_new = as_vector(next.weights), g_new = as_vector(next.gradient);
    if (!std::isfinite(next.value) || !finite(g_new)) {
      out.termination = Termination::NumericalFailure;
      return out;
    }
    Vector s = x_new - out.x, y = g_new - g;
    const double sy = dot(s, y);
    double largest_step = 0;
    for (double v : s) largest_step = std::max(largest_step, std::fabs(v));
    const double change = std::fabs(next.value - out.value);
    out.x = std::move(x_new);
    g = std::move(g_new);
    out.value = next.value;
    out.iterations = it + 1;
    out.curve.push_back(out.value);
    if (options.on_iteration) options.on_iteration(out.iterations, out.value);
    if (options.keep_going && !options.keep_going(out.iterations, out.x)) {
      out.stopped = true;
      out.termination = Termination::Converged;
      out.gradient_max = largest(g);
      return out;
    }
    // The curvature condition s.y > 0 holds after a Wolfe step; skip the pair if rounding broke it.
    if (sy > 0) {
      pairs.push_back(Pair{std::move(s), std::move(y), 1.0 / sy});
      if (pairs.size() > options.memory) pairs.pop_front();
    }
    if (largest_step < options.tolerance && change < options.tolerance) {
      out.termination = Termination::Converged;
      out.gradient_max = largest(g);
      return out;
    }
  }
  out.termination = Termination::IterationCap;
  out.gradient_max = largest(g);
  return out;
}

}  // namespace radial::refine
