// The template plugin: its minimiser on a quadratic whose minimum is known, its library loaded
// alone (Radial::testing, which also gives Catch2's main), and the SDK's conformance kit.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/plugin_checks.hpp>

#include "../steepest_descent.hpp"

using radial::conformance::plugin_under_test;

TEST_CASE("steepest-descent finds the minimum of E = 1/2 sum a_i (x_i - b_i)^2") {
  const double a[] = {1.0, 4.0}, b[] = {3.0, -2.0};
  const radial::refine::GradientFunction f = [&](const radial::Vector& x, radial::Vector& g) {
    double e = 0;
    for (std::size_t i = 0; i < 2; ++i) {
      g(i) = a[i] * (x(i) - b[i]);
      e += 0.5 * a[i] * (x(i) - b[i]) * (x(i) - b[i]);
    }
    return e;
  };
  radial::refine::LbfgsOptions options;
  options.iterations = 1000;
  options.tolerance = 1e-10;
  const radial::Vector start = {0.0, 0.0};
  const auto result = steepest_descent_plugin::minimise_steepest_descent(f, start, options);
  CHECK(result.termination == radial::Termination::Converged);
  CHECK(result.x(0) == Approx(3.0).epsilon(1e-9));
  CHECK(result.x(1) == Approx(-2.0).epsilon(1e-9));
  CHECK(result.gradient_max <= 1e-10);
  // The error never rises: every accepted step met the Armijo condition.
  for (std::size_t k = 1; k < result.curve.size(); ++k) CHECK(result.curve[k] < result.curve[k - 1]);
}

TEST_CASE("steepest-descent stops at its iteration cap and says so") {
  // E = 1/2 x^2 + 2 (y + 2)^2 from (1, 0), E = 8.5, g = (1, 8): s = 1 overshoots to (0, -8),
  // E = 72; s = 1/2 reaches (0.5, -4), E = 8.125, below 8.5 - 1e-4 s |g|^2. Then the cap.
  const radial::refine::GradientFunction f = [](const radial::Vector& x, radial::Vector& g) {
    g(0) = x(0);
    g(1) = 4 * (x(1) + 2);
    return 0.5 * x(0) * x(0) + 2 * (x(1) + 2) * (x(1) + 2);
  };
  radial::refine::LbfgsOptions options;
  options.iterations = 1;
  options.tolerance = 0;
  const auto result =
      steepest_descent_plugin::minimise_steepest_descent(f, radial::Vector{1.0, 0.0}, options);
  CHECK(result.iterations == 1);
  CHECK(result.termination == radial::Termination::IterationCap);
  CHECK(result.value == Approx(8.125).epsilon(1e-15));
  CHECK(result.x(0) == 0.5);
  CHECK(result.x(1) == -4.0);
}

TEST_CASE("steepest-descent loads alone from its build folder") {
  radial::Registry registry;
  const radial::ComponentInfo& info = radial::testing::require_plugin(
      registry, "refine-steepest-descent", radial::Slot::Refine, "steepest-descent");
  CHECK(radial::find_param(info.params, "iterations") != nullptr);
}

TEST_CASE("steepest-descent passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "steepest-descent");
}
