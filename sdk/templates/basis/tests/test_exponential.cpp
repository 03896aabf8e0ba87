// The template plugin: closed-form values, the basis checks of Radial::testing (Catch2's main
// comes from it too), and the SDK's conformance kit.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/basis_checks.hpp>

using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::Basis> make(double width) {
  const auto& info = plugin_under_test().require(radial::Slot::Basis, "exponential");
  return plugin_under_test().make_basis(
      "exponential", radial::validate_params(info.params, {{"width", width}}, "test"));
}

}  // namespace

TEST_CASE("exponential maps squared distances to exp(-r / width)") {
  const auto basis = make(2.0);
  radial::Matrix r2 = {{0.0, 4.0, 9.0}};
  basis->map(r2);
  CHECK(r2(0, 0) == 1.0);
  CHECK(r2(0, 1) == Approx(std::exp(-1.0)).epsilon(1e-15));  // r = 2, width 2
  CHECK(r2(0, 2) == Approx(std::exp(-1.5)).epsilon(1e-15));  // r = 3

  radial::Matrix logs = {{9.0}};
  basis->log_map(logs);
  CHECK(logs(0, 0) == Approx(-1.5).epsilon(1e-15));
}

TEST_CASE("exponential refuses a non-positive width") {
  CHECK_THROWS_AS(make(0.0), radial::ParameterError);
}

TEST_CASE("exponential: a block from the GEMM identity, NaN, and its library alone") {
  const auto basis = make(2.0);
  const radial::testing::RadialFunction phi = [](double r) { return std::exp(-r / 2.0); };
  radial::testing::check_gemm_block(*basis, phi);
  radial::testing::check_nan_propagates(*basis);
  // Loaded by its file name from the folder it was built in, with a summary and a paper.
  radial::Registry registry;
  const radial::ComponentInfo& info =
      radial::testing::require_basis_plugin(registry, "exponential");
  CHECK(info.params.size() == 1);
}

TEST_CASE("exponential passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "exponential");
  radial::conformance::Options narrow;
  narrow.params = {{"width", 0.05}};
  radial::conformance::check_plugin(plugin_under_test(), "exponential", narrow);
}
