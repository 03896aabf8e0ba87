// The template plugin: closed-form values and derivatives, its library loaded alone
// (Radial::testing, which also gives Catch2's main), and the SDK's conformance kit (which also
// checks the gradient and Hessian against finite differences).
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/plugin_checks.hpp>

using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::WeightPenalty> make(double alpha, double delta) {
  const auto& info = plugin_under_test().require(radial::Slot::WeightPenalty, "pseudo-huber");
  return plugin_under_test().make_weight_penalty(
      "pseudo-huber",
      radial::validate_params(info.params, {{"alpha", alpha}, {"delta", delta}}, "test"));
}

}  // namespace

TEST_CASE("pseudo-huber: alpha delta^2 (sqrt(1 + (w/delta)^2) - 1) without the bias row") {
  const auto penalty = make(0.5, 2.0);
  const radial::Matrix w = {{2.0}, {0.0}, {7.0}};  // the last row is the bias
  // 0.5 * 4 * (sqrt(2) - 1) for w = 2; 0 for w = 0; the bias is free.
  CHECK(penalty->penalty(w) == Approx(2.0 * (std::sqrt(2.0) - 1.0)).epsilon(1e-15));
  radial::Matrix g = xt::zeros<double>({std::size_t(3), std::size_t(1)});
  penalty->add_gradient(w, g);
  CHECK(g(0, 0) == Approx(0.5 * 2.0 / std::sqrt(2.0)).epsilon(1e-15));
  CHECK(g(1, 0) == 0.0);
  CHECK(g(2, 0) == 0.0);
  radial::Matrix h = xt::zeros<double>({std::size_t(3), std::size_t(3)});
  penalty->add_hessian(w, h);
  CHECK(h(0, 0) == Approx(0.5 / std::pow(2.0, 1.5)).epsilon(1e-15));
  CHECK(h(1, 1) == Approx(0.5).epsilon(1e-15));  // alpha at w = 0: weight decay's curvature
  CHECK(h(2, 2) == 0.0);
}

TEST_CASE("pseudo-huber refuses a non-positive delta") {
  CHECK_THROWS_AS(make(0.1, 0.0), radial::ParameterError);
}

TEST_CASE("pseudo-huber loads alone from its build folder; zero weights cost nothing") {
  radial::Registry registry;
  const radial::ComponentInfo& info = radial::testing::require_plugin(
      registry, "weight-penalty-pseudo-huber", radial::Slot::WeightPenalty, "pseudo-huber");
  const auto penalty = registry.make_weight_penalty(
      "pseudo-huber", radial::validate_params(info.params, {{"alpha", 0.5}}, "test"));
  const radial::Matrix w = xt::zeros<double>({std::size_t(3), std::size_t(2)});
  CHECK(penalty->penalty(w) == 0.0);
  radial::Matrix g = xt::zeros<double>({std::size_t(3), std::size_t(2)});
  penalty->add_gradient(w, g);
  for (double v : g) CHECK(v == 0.0);
}

TEST_CASE("pseudo-huber passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "pseudo-huber");
}
