#pragma once
// Line searches along a direction d from weights x, on phi(a) = E(x + a d), each with its own
// options (as Ceres' LineSearch / LineSearchOptions):
//
//   wolfe_line_search     strong Wolfe conditions by bracketing and cubic zoom (Nocedal &
//                         Wright, Numerical Optimization, algorithms 3.5 and 3.6); quasi-Newton
//   armijo_backtracking   halve a from 1 until sufficient decrease (Nocedal & Wright,
//                         algorithm 3.1); Newton / IRLS step control
//
// Both take the error and slope phi'(0) = grad E . d at a = 0, and need d to descend
// (slope < 0).

#include <cstddef>
#include <functional>

#include "radial/glm/objective.hpp"
#include "radial/core/types.hpp"

namespace radial::glm {

// One evaluated point of phi: the step, phi(a), phi'(a), and the weights and gradient there.
struct LineSample {
  double step = 0, value = 0, slope = 0;
  Matrix weights, gradient;
};

// phi(a) = E(x + a d) and phi'(a) = grad E . d, one pass over the rows for both, with a budget
// of evaluations. x and d must outlive it.
class LineFunction {
 public:
  LineFunction(Objective& objective, const Matrix& x, const Matrix& d, std::size_t budget);
  // Any differentiable function: gradient_at(w, g) returns E(w) and sets g = grad E(w).
  using GradientAt = std::function<double(const Matrix& weights, Matrix& gradient)>;
  LineFunction(GradientAt gradient_at, const Matrix& x, const Matrix& d, std::size_t budget);
  LineSample at(double a);
  bool exhausted() const { return used_ >= budget_; }
  std::size_t evaluations() const { return used_; }

 private:
  Objective* objective_ = nullptr;
  GradientAt gradient_at_;
  const Matrix& x_;
  const Matrix& d_;
  std::size_t budget_, used_ = 0;
};

struct WolfeOptions {
  double sufficient_decrease = 1e-4;  // c1: phi(a) <= phi(0) + c1 a phi'(0)
  double curvature = 0.1;             // c2: |phi'(a)| <= c2 |phi'(0)| (0.1: a near-exact search)
  std::size_t max_evaluations = 25;   // the LineFunction's budget
};

// A point satisfying the strong Wolfe conditions, starting with the step `first_step` and
// doubling it while the bracket is not found. Out of budget, the best point with sufficient
// decrease is accepted. Returns false when no point with sufficient decrease was found.
// `start` holds phi(0) (value) and phi'(0) (slope).
bool wolfe_line_search(LineFunction& line, const LineSample& start, double first_step,
                       const WolfeOptions& options, LineSample& out);

struct ArmijoOptions {
  double sufficient_decrease = 1e-4;  // c1: E(x + a d) <= E(x) + c1 a slope
  std::size_t max_halvings = 30;      // a >= 2^-30
  // A change within rounding * max(1, |E(x)|) is accepted too (at the minimum E cannot fall).
  double rounding = 1e-13;
};

// Armijo's sufficient decrease, or no change beyond rounding. A non-finite error is refused.
bool armijo_acceptable(double error_new, double error, double step, double slope,
                       const ArmijoOptions& options = {});

struct ArmijoResult {
  double step = 1;
  double value = 0;           // E(x + step d)
  std::size_t halvings = 0;
  bool accepted = false;      // false: not acceptable even after max_halvings halvings
};

// Backtracking from a = 1: `full_step_value` is E(x + d), already evaluated (the caller often
// wants more than the value there); `value_at(a)` evaluates E(x + a d) for a < 1.
ArmijoResult armijo_backtracking(double error, double slope, double full_step_value,
                                 const std::function<double(double)>& value_at,
                                 const ArmijoOptions& options = {});

}  // namespace radial::glm
