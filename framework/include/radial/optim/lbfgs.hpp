#pragma once
// Limited-memory BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed., algorithms 7.4 and
// 7.5) on the framework's strong-Wolfe line search (radial/optim/line_search.hpp): the inverse
// Hessian is never formed, only the last `memory` pairs (s, y) are kept, so the memory is
// O(memory x P) for the tens of thousands of parameters of a network's centres and diagonal
// widths. The first step of each iteration is 1, which the Wolfe search then accepts or
// brackets; the first iteration scales the steepest-descent direction to length 1.
//
// Stops, as the output trainers do (papers 000/003, section 4), when both the largest absolute
// parameter change and the absolute error change fall below `tolerance` (or the gradient
// vanishes, or no step lowers E where max |g| <= sqrt(epsilon) max(1, |E|): a minimum to
// rounding); at the iteration cap; when the line search finds no lower point along the L-BFGS
// direction and then the steepest descent; or on a non-finite value. The error never rises: each accepted step satisfies sufficient decrease.

#include <cstddef>
#include <functional>
#include <vector>

#include "radial/core/fit_context.hpp"
#include "radial/core/types.hpp"

namespace radial::refine {

struct LbfgsOptions {
  std::size_t iterations = 200;
  double tolerance = 1e-6;
  std::size_t memory = 10;
  // Called with 0 and the start's error, then after each iteration (for learning curves).
  std::function<void(std::size_t iteration, double error)> on_iteration;
  // Called after each iteration with the parameters; false stops the minimiser there
  // (early stopping), reported as converged with `stopped` set.
  std::function<bool(std::size_t iteration, const Vector& x)> keep_going;
};

struct MinimiseResult {
  Vector x;                    // the parameters at the end
  double value = 0;            // the error there
  std::size_t iterations = 0;  // accepted steps
  std::size_t evaluations = 0; // gradient evaluations, the start's included
  double gradient_max = 0;     // the largest |dE/dx| there
  Termination termination = Termination::Converged;
  bool stopped = false;        // keep_going said stop
  std::vector<double> curve;   // the error at the start and after each iteration
};

// E and its gradient at x: returns E(x) and sets g (resized) to grad E(x).
using GradientFunction = std::function<double(const Vector& x, Vector& g)>;

MinimiseResult minimise_lbfgs(const GradientFunction& f, Vector start,
                              const LbfgsOptions& options);

}  // namespace radial::refine
