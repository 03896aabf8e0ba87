// Gradient descent with Armijo backtracking (steepest_descent.hpp).
#include "steepest_descent.hpp"

#include <algorithm>
#include <cmath>

namespace steepest_descent_plugin {

using radial::Termination;
using radial::Vector;
using radial::refine::MinimiseResult;

MinimiseResult minimise_steepest_descent(const radial::refine::GradientFunction& f,
                                         Vector start, const radial::refine::LbfgsOptions& options) {
  MinimiseResult result;
  Vector x = std::move(start);
  Vector g = Vector::from_shape({x.size()});
  double error = f(x, g);
  result.evaluations = 1;
  result.curve.push_back(error);
  if (options.on_iteration) options.on_iteration(0, error);
  result.termination = Termination::IterationCap;
  double step = 1.0;
  Vector trial = Vector::from_shape({x.size()});
  Vector trial_gradient = Vector::from_shape({x.size()});
  for (std::size_t iteration = 1;; ++iteration) {
    double largest = 0, squared = 0;
    for (const double v : g) {
      largest = std::max(largest, std::abs(v));
      squared += v * v;
    }
    if (!std::isfinite(error) || !std::isfinite(squared)) {
      result.termination = Termination::NumericalFailure;
      break;
    }
    if (largest <= options.tolerance) {
      result.termination = Termination::Converged;
      break;
    }
    if (iteration > options.iterations) break;
    bool accepted = false;
    for (int halving = 0; halving < 60 && !accepted; ++halving, step /= 2) {
      for (std::size_t i = 0; i < x.size(); ++i) trial(i) = x(i) - step * g(i);
      const double trial_error = f(trial, trial_gradient);
      ++result.evaluations;
      if (std::isfinite(trial_error) && trial_error <= error - 1e-4 * step * squared) {
        accepted = true;
        error = trial_error;
      }
    }
    if (!accepted) {
      result.termination = Termination::NoProgress;
      break;
    }
    step *= 4;  // undoes the loop's last halving, then doubles
    std::swap(x, trial);
    std::swap(g, trial_gradient);
    result.iterations = iteration;
    result.curve.push_back(error);
    if (options.on_iteration) options.on_iteration(iteration, error);
    if (options.keep_going && !options.keep_going(iteration, x)) {
      result.termination = Termination::Converged;
      result.stopped = true;
      break;
    }
  }
  result.value = error;
  result.gradient_max = 0;
  for (const double v : g) result.gradient_max = std::max(result.gradient_max, std::abs(v));
  result.x = std::move(x);
  return result;
}

}  // namespace steepest_descent_plugin
