// Scaled conjugate gradient (see scg.hpp). Variable names follow NETLAB's scg.m.
#include "scg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "radial/glm/flops.hpp"
#include "radial/glm/training.hpp"
#include "radial/glm/vectors.hpp"

namespace radial::plugins {

using glm::dot;

Matrix scg(glm::Objective& objective, const ScgOptions& options, FitContext& ctx) {
  Matrix x = glm::start_weights(options.start, objective);
  const std::size_t p = objective.size();
  const glm::StoppingRule rule{options.tolerance, options.iterations};
  const double sigma0 = 1e-4, beta_min = 1e-15, beta_max = 1e100;
  const double eps = std::numeric_limits<double>::epsilon();
  auto vec_flops = [&](double count) { objective.add_flops(count * glm::flops::axpy(p)); };

  glm::Trace trace(ctx, objective, scg_id);
  Matrix grad_new, grad_old, gplus;
  double f_old = objective.gradient(x, grad_new);
  double f_now = f_old;
  trace.record(0, f_now);
  grad_old = grad_new;
  Matrix d = -grad_new;
  bool success = true;
  std::size_t n_success = 0;
  double beta = 1.0, mu = 0, kappa = 0, theta = 0;
  std::optional<glm::Stop> stop;  // empty: the iteration cap
  std::size_t j = 1;
  for (; j <= rule.iterations; ++j) {
    if (success) {
      // Second-order information from a finite difference of gradients along d.
      mu = dot(d, grad_new);
      if (mu >= 0) {
        d = -grad_new;
        mu = dot(d, grad_new);
      }
      kappa = dot(d, d);
      vec_flops(2);
      if (kappa < eps) {
        stop = glm::Stop{Termination::Converged,
                         "zero gradient (|d|^2 below machine epsilon) at iteration " +
                             std::to_string(j)};
        break;
      }
      const double sigma = sigma0 / std::sqrt(kappa);
      const Matrix x_plus = x + sigma * d;
      objective.gradient(x_plus, gplus);
      theta = 0;
      for (std::size_t i = 0; i < p; ++i)
        theta += d.data()[i] * (gplus.data()[i] - grad_new.data()[i]);
      theta /= sigma;
      vec_flops(3);
    }
    // Scale the curvature so that the step is a descent step (Moller's lambda = beta here).
    double delta = theta + beta * kappa;
    if (delta <= 0) {
      delta = beta * kappa;
      beta = beta - theta / kappa;
    }
    const double alpha = -mu / delta;
    const Matrix x_new = x + alpha * d;
    const double f_new = objective.value(x_new);
    vec_flops(1);
    // Comparison ratio of actual to predicted decrease.
    const double big_delta = 2 * (f_new - f_old) / (alpha * mu);
    if (big_delta >= 0 && std::isfinite(f_new)) {
      success = true;
      ++n_success;
      const bool done = rule.satisfied(x_new, x, f_new, f_old);
      x = x_new;
      f_now = f_new;
      trace.record(j, f_now);
      if (done) {
        stop = glm::Stop{Termination::Converged, rule.met_at(j)};
        break;
      }
      f_old = f_new;
      grad_old = grad_new;
      objective.gradient(x, grad_new);
      if (dot(grad_new, grad_new) == 0) {
        stop = glm::Stop{Termination::Converged, "zero gradient at iteration " + std::to_string(j)};
        break;
      }
    } else {
      success = false;
      f_now = f_old;
      trace.record(j, f_now);
    }
    if (big_delta < 0.25) beta = std::min(4 * beta, beta_max);
    if (big_delta > 0.75) beta = std::max(0.5 * beta, beta_min);
    // Restart every p successful steps; otherwise Polak-Ribiere-like conjugate update.
    if (n_success == p) {
      d = -grad_new;
      n_success = 0;
    } else if (success) {
      double gamma = 0;
      for (std::size_t i = 0; i < p; ++i)
        gamma += (grad_old.data()[i] - grad_new.data()[i]) * grad_new.data()[i];
      gamma /= mu;
      d = gamma * d - grad_new;
      vec_flops(2);
    }
  }
  const std::size_t iterations = std::min(j, rule.iterations);
  trace.finish(iterations, stop, x, f_now, rule.iterations);
  return x;
}

}  // namespace radial::plugins
