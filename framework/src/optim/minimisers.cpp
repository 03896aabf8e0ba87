// Dense BFGS and scaled conjugate gradients for whole-network training
// (radial/optim/minimisers.hpp).
#include "radial/optim/minimisers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "radial/core/errors.hpp"
#include "minimiser_steps.hpp"
#include "radial/optim/quasi_newton.hpp"

namespace radial::refine {

using namespace detail;  // the shared steps (minimiser_steps.hpp)

MinimiseResult minimise_bfgs(const GradientFunction& f, Vector start,
                             const LbfgsOptions& options) {
  const std::size_t p = start.size();
  if (p > max_bfgs_parameters)
    throw InputError("BFGS keeps a " + std::to_string(p) + " x " + std::to_string(p) +
                     " inverse Hessian (" + std::to_string(p * p * 8 >> 20) +
                     " MB) for this network's " + std::to_string(p) +
                     " parameters; above " + std::to_string(max_bfgs_parameters) +
                     " use the lbfgs refiner");
  MinimiseResult out;
  Vector g;
  if (!begin(f, options, std::move(start), out, g)) return out;
  Matrix h = xt::zeros<double>({p, p});
  for (std::size_t i = 0; i < p; ++i) h(i, i) = 1.0;
  bool scaled = false;
  Vector hy = Vector::from_shape({p});
  for (std::size_t it = 0; it < options.iterations; ++it) {
    out.gradient_max = max_abs(g);
    if (out.gradient_max == 0) {
      out.termination = Termination::Converged;
      return out;
    }
    Vector d = Vector::from_shape({p});
    for (std::size_t i = 0; i < p; ++i) {
      double v = 0;
      for (std::size_t j = 0; j < p; ++j) v -= h(i, j) * g(j);
      d(i) = v;
    }
    if (!scaled) d /= std::sqrt(dot(g, g));  // the first step of length 1
    double slope = dot(g, d);
    if (!(slope < 0)) {  // rounding lost descent: restart from steepest descent
      h = xt::zeros<double>({p, p});
      for (std::size_t i = 0; i < p; ++i) h(i, i) = 1.0;
      scaled = false;
      d = -g / std::sqrt(dot(g, g));
      slope = dot(g, d);
    }
    glm::LineSample next;
    if (!wolfe_search(f, out, g, d, slope, next)) {
      out.termination = stalled(out);
      return out;
    }
    const double change = next.value - out.value;
    Vector s, y;
    if (!step_to(next, options, it + 1, out, g, s, y)) return out;
    const double sy = dot(s, y);
    if (sy > 0) {
      if (!scaled) {  // H0 = (s.y / y.y) I before the first update (eq. 6.20)
        const double gamma = sy / dot(y, y);
        for (std::size_t i = 0; i < p; ++i) h(i, i) = gamma;
        scaled = true;
      }
      glm::bfgs_inverse_update(h, as_column(s), as_column(y), sy, hy);
    }
    if (settled(s, change, options.tolerance)) {
      return ended(std::move(out), Termination::Converged, g);
    }
  }
  return ended(std::move(out), Termination::IterationCap, g);
}

MinimiseResult minimise_scg(const GradientFunction& f, Vector start,
                            const LbfgsOptions& options) {
  constexpr double sigma0 = 1e-4, lambda_min = 1e-15, lambda_max = 1e100;
  MinimiseResult out;
  Vector g;
  if (!begin(f, options, std::move(start), out, g)) return out;
  const std::size_t p = out.x.size();
  double lambda = 1.0, mu = 0, kappa = 0, gamma = 0;
  bool success = true;
  std::size_t successes = 0;
  Vector d = -g, g_new;
  for (std::size_t it = 0; it < options.iterations; ++it) {
    if (success) {
      // The curvature along d from one extra gradient (Moller's sigma step).
      mu = dot(d, g);
      if (mu >= 0) {
        d = -g;
        mu = dot(d, g);
      }
      kappa = dot(d, d);
      if (kappa < std::numeric_limits<double>::epsilon()) {
        return ended(std::move(out), Termination::Converged, g);
      }
      const double sigma = sigma0 / std::sqrt(kappa);
      Vector g_plus;
      f(out.x + sigma * d, g_plus);
      ++out.evaluations;
      gamma = dot(d, g_plus - g) / sigma;
    }
    // Scale the curvature; make it positive if it is not.
    double delta = gamma + lambda * kappa;
    if (delta <= 0) {
      delta = lambda * kappa;
      lambda = lambda - gamma / kappa;
    }
    const double alpha = -mu / delta;
    const Vector step = alpha * d;
    const Vector x_new = out.x + step;
    const double f_new = f(x_new, g_new);
    ++out.evaluations;
    const double comparison = 2.0 * (f_new - out.value) / (alpha * mu);
    if (std::isfinite(f_new) && all_finite(g_new) && comparison >= 0) {
      const double change = f_new - out.value;
      out.x = x_new;
      out.value = f_new;
      const Vector g_old = g;
      g = g_new;
      success = true;
      ++successes;
      if (!accept(out, options, out.iterations + 1)) {
        out.gradient_max = max_abs(g);
        return out;
      }
      if (settled(step, change, options.tolerance)) {
        return ended(std::move(out), Termination::Converged, g);
      }
      // The next direction: restart every P successes, else Polak-Ribiere (NETLAB scg.m).
      if (successes == p) {
        d = -g;
        successes = 0;
      } else {
        const double beta = dot(g_old - g, g) / mu;
        d = beta * d - g;
      }
    } else {
      success = false;
    }
    // Adjust the scale by how well the quadratic model predicted the change.
    if (!(comparison >= 0.25)) lambda = std::min(4.0 * lambda, lambda_max);
    if (comparison > 0.75) lambda = std::max(0.5 * lambda, lambda_min);
    if (lambda >= lambda_max) {
      const double floor = std::sqrt(std::numeric_limits<double>::epsilon()) *
                           std::max(1.0, std::fabs(out.value));
      out.gradient_max = max_abs(g);
      out.termination =
          out.gradient_max <= floor ? Termination::Converged : Termination::NoProgress;
      return out;
    }
  }
  return ended(std::move(out), Termination::IterationCap, g);
}

}  // namespace radial::refine
