#pragma once
// The `steepest-descent` refiner: a refiner is its minimiser. The framework's refine_network
// (radial/refine/refine_network.hpp) builds the whole network's error and gradient (centres,
// log widths, output weights, the output layer's own error plus the weight penalty), starts
// from the two-stage fit, keeps the report and the early stopping; the plugin supplies only
// the minimiser, here gradient descent with Armijo backtracking.

#include <radial/refine/refine_network.hpp>

namespace steepest_descent_plugin {

// Minimises f from `start`: x <- x - s g with the step s halved until the error falls by at
// least 1e-4 s |g|^2 (Armijo; Nocedal & Wright 3.4 with the steepest-descent direction), and
// doubled after each accepted step. Stops when max |g_i| <= options.tolerance (converged),
// after options.iterations steps (iteration cap), or when 60 halvings find no such step (no
// progress).
radial::refine::MinimiseResult minimise_steepest_descent(
    const radial::refine::GradientFunction& f, radial::Vector start,
    const radial::refine::LbfgsOptions& options);

using SteepestDescent = radial::refine::MinimiserRefiner<minimise_steepest_descent>;

}  // namespace steepest_descent_plugin
