// The framework's line searches (radial/optim/line_search.hpp) on functions known in closed form:
// strong Wolfe on a least-squares quadratic and on a logistic cross-entropy, whose values and
// slopes the test computes by hand; Armijo backtracking on a 1-D quadratic, where the accepted
// step is found by hand.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "radial/optim/line_search.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/vectors.hpp"

using radial::Link;
using radial::Matrix;
using radial::glm::LineFunction;
using radial::glm::LineSample;
using radial::glm::Objective;

namespace {

// phi(a) = E(x + a d) and phi'(a) computed directly from the definition of E, not by Objective.
struct ByHand {
  Matrix phi, targets;
  bool logistic = false;
  double value(const Matrix& w) const {
    double e = 0;
    for (std::size_t n = 0; n < phi.shape(0); ++n) {
      double a = 0;
      for (std::size_t i = 0; i < phi.shape(1); ++i) a += phi(n, i) * w(i, 0);
      const double t = targets(n, 0);
      if (logistic) {
        const double y = 1 / (1 + std::exp(-a));
        e -= t * std::log(y) + (1 - t) * std::log(1 - y);
      } else {
        e += 0.5 * (a - t) * (a - t);
      }
    }
    return e;
  }
  // Central difference of E along d: the slope phi'(a), accurate to ~1e-8 here.
  double slope(const Matrix& x, const Matrix& d, double a) const {
    const double h = 1e-6;
    return (value(x + (a + h) * d) - value(x + (a - h) * d)) / (2 * h);
  }
};

ByHand problem(bool logistic) {
  ByHand p;
  p.logistic = logistic;
  // Rows [x1, x2, 1]: the last column is the bias.
  p.phi = Matrix{{0.5, -1.0, 1.0}, {1.5, 0.2, 1.0}, {-0.7, 0.9, 1.0},
                 {2.0, 1.1, 1.0},  {-1.2, -0.4, 1.0}, {0.3, 0.6, 1.0}};
  p.targets = logistic ? Matrix{{1}, {1}, {0}, {1}, {0}, {0}}
                       : Matrix{{0.3}, {1.9}, {-0.4}, {2.2}, {-1.5}, {0.1}};
  return p;
}

void check_strong_wolfe(bool logistic, double first_step) {
  const ByHand hand = problem(logistic);
  Objective objective(hand.phi, hand.targets, logistic ? Link::Logistic : Link::Identity);
  const Matrix x{{0.2}, {-0.3}, {0.1}};
  Matrix g;
  const double f0 = objective.gradient(x, g);
  REQUIRE(f0 == Approx(hand.value(x)).epsilon(1e-12));
  const Matrix d = -g;  // steepest descent
  LineSample start;
  start.value = f0;
  start.slope = radial::glm::dot(g, d);
  REQUIRE(start.slope < 0);

  const radial::glm::WolfeOptions options;  // c1 = 1e-4, c2 = 0.1
  LineFunction line(objective, x, d, options.max_evaluations);
  LineSample out;
  REQUIRE(radial::glm::wolfe_line_search(line, start, first_step, options, out));
  CHECK(out.step > 0);
  CHECK(line.evaluations() <= options.max_evaluations);
  // The point and its value and slope are what they claim, by hand.
  const Matrix at = x + out.step * d;
  for (std::size_t i = 0; i < 3; ++i) CHECK(out.weights(i, 0) == Approx(at(i, 0)).margin(1e-15));
  const double value = hand.value(at), slope = hand.slope(x, d, out.step);
  CHECK(out.value == Approx(value).epsilon(1e-12));
  CHECK(out.slope == Approx(slope).epsilon(1e-6).margin(1e-8));
  // Strong Wolfe: sufficient decrease and curvature (Nocedal & Wright eq. 3.7).
  CHECK(value <= f0 + options.sufficient_decrease * out.step * start.slope);
  CHECK(std::fabs(slope) <= options.curvature * std::fabs(start.slope) + 1e-8);
}

}  // namespace

TEST_CASE("the Wolfe line search meets the strong Wolfe conditions on a quadratic",
          "[glm][line-search]") {
  // Too long, too short and about right first steps: bracketing, doubling and direct accept.
  for (double first : {10.0, 1e-3, 0.1}) {
    INFO("first step " << first);
    check_strong_wolfe(false, first);
  }
  // On a quadratic the exact minimiser is a* = -phi'(0) / (d^T Phi^T Phi d); with c2 = 0.1 the
  // accepted step is within 10% of a* in slope, so within 10% of a* itself.
  const ByHand hand = problem(false);
  Objective objective(hand.phi, hand.targets, Link::Identity);
  const Matrix x{{0.2}, {-0.3}, {0.1}};
  Matrix g;
  const double f0 = objective.gradient(x, g);
  const Matrix d = -g;
  double curvature = 0;
  for (std::size_t n = 0; n < 6; ++n) {
    double v = 0;
    for (std::size_t i = 0; i < 3; ++i) v += hand.phi(n, i) * d(i, 0);
    curvature += v * v;
  }
  LineSample start;
  start.value = f0;
  start.slope = radial::glm::dot(g, d);
  const double exact = -start.slope / curvature;
  LineFunction line(objective, x, d, 25);
  LineSample out;
  REQUIRE(radial::glm::wolfe_line_search(line, start, 10 * exact, {}, out));
  CHECK(out.step == Approx(exact).epsilon(0.1));
}

TEST_CASE("the Wolfe line search meets the strong Wolfe conditions on a cross-entropy",
          "[glm][line-search]") {
  for (double first : {50.0, 1e-4, 1.0}) {
    INFO("first step " << first);
    check_strong_wolfe(true, first);
  }
}

TEST_CASE("Armijo backtracking halves to the first step with sufficient decrease",
          "[glm][line-search]") {
  // phi(a) = 5 a^2 - a: phi(0) = 0, phi'(0) = -1. Sufficient decrease 5a^2 - a <= -1e-4 a holds
  // for a <= (1 - 1e-4) / 5 = 0.19998, so 1, 0.5 and 0.25 are refused and 0.125 accepted.
  const auto phi = [](double a) { return 5 * a * a - a; };
  std::vector<double> asked;
  const auto value_at = [&](double a) {
    asked.push_back(a);
    return phi(a);
  };
  const radial::glm::ArmijoResult r =
      radial::glm::armijo_backtracking(0.0, -1.0, phi(1.0), value_at);
  CHECK(r.accepted);
  CHECK(r.halvings == 3);
  CHECK(r.step == 0.125);
  CHECK(r.value == -0.046875);  // 5/64 - 1/8
  CHECK(asked == std::vector<double>{0.5, 0.25, 0.125});

  // A cap of two halvings stops at a = 0.25 (phi = 1/16 > 0), not acceptable.
  radial::glm::ArmijoOptions capped;
  capped.max_halvings = 2;
  const auto stopped = radial::glm::armijo_backtracking(0.0, -1.0, phi(1.0), phi, capped);
  CHECK_FALSE(stopped.accepted);
  CHECK(stopped.step == 0.25);
  CHECK(stopped.halvings == 2);

  // A full step that decreases enough is taken without evaluating anything else.
  asked.clear();
  const auto full = radial::glm::armijo_backtracking(0.0, -1.0, -0.5, value_at);
  CHECK(full.accepted);
  CHECK(full.step == 1.0);
  CHECK(asked.empty());

  // At a minimum the error cannot fall: a change within rounding is accepted; NaN is not.
  CHECK(radial::glm::armijo_acceptable(1.0 + 1e-14, 1.0, 1.0, -1e-20));
  CHECK_FALSE(radial::glm::armijo_acceptable(1.0 + 1e-10, 1.0, 1.0, -1e-20));
  CHECK_FALSE(radial::glm::armijo_acceptable(std::nan(""), 1.0, 1.0, -1.0));
}
