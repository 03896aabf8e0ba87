// Limited-memory BFGS (radial/optim/lbfgs.hpp).
#include "radial/optim/lbfgs.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>

#include "minimiser_steps.hpp"

namespace radial::refine {

using namespace detail;  // the shared steps (minimiser_steps.hpp)

MinimiseResult minimise_lbfgs(const GradientFunction& f, Vector start,
                              const LbfgsOptions& options) {
  MinimiseResult out;
  Vector g;
  if (!begin(f, options, std::move(start), out, g)) return out;
  struct Pair {
    Vector s, y;
    double rho;
  };
  std::deque<Pair> pairs;
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
    glm::LineSample next;
    if (!wolfe_search(f, out, g, d, slope, next)) {
      // Stale curvature pairs can give a poor direction: once, forget them and search along
      // the steepest descent. No progress is reported only when that fails too.
      if (pairs.empty()) {
        // At a minimum to rounding no step can lower E: converged when the gradient is that
        // small (sqrt(epsilon) relative to E), else no progress.
        out.gradient_max = max_abs(g);
        out.termination = stalled(out);
        return out;
      }
      pairs.clear();
      --it;
      continue;
    }
    const double change = next.value - out.value;
    Vector s, y;
    if (!step_to(next, options, it + 1, out, g, s, y)) return out;
    const double sy = dot(s, y);
    const bool converged = settled(s, change, options.tolerance);
    // The curvature condition s.y > 0 holds after a Wolfe step; skip the pair if rounding broke it.
    if (sy > 0) {
      pairs.push_back(Pair{std::move(s), std::move(y), 1.0 / sy});
      if (pairs.size() > options.memory) pairs.pop_front();
    }
    if (converged) {
      return ended(std::move(out), Termination::Converged, g);
    }
  }
  return ended(std::move(out), Termination::IterationCap, g);
}

}  // namespace radial::refine
