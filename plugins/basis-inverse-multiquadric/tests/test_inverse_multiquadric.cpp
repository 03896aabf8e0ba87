// The inverse-multiquadric basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/basis_checks.hpp>

#include "inverse_multiquadric.hpp"

using namespace radial;
using radial::plugins::InverseMultiquadricBasis;
using radial::testing::mapped;

namespace {

// phi(r) in closed form.
double phi(double r) { return 1.0 / std::sqrt(r * r + 4.0); }

}  // namespace

TEST_CASE("inverse-multiquadric matches its closed form, including r = 0", "[basis-inverse-multiquadric]") {
  const InverseMultiquadricBasis basis({2.0});
  testing::check_values(basis, {{0.0, 0.5}, {3.0, 1.0 / std::sqrt(13.0)}, {1.5, 0.4},
                                {1e3, 1.0 / std::sqrt(1e6 + 4.0)}});
}

TEST_CASE("inverse-multiquadric on a block of distances from the GEMM identity", "[basis-inverse-multiquadric]") {
  testing::check_gemm_block(InverseMultiquadricBasis({2.0}), phi);
}

TEST_CASE("inverse-multiquadric log map and state", "[basis-inverse-multiquadric]") {
  const InverseMultiquadricBasis basis({2.0});
  testing::check_quadric_log_map(basis, -1);
  testing::check_state_round_trip(basis, phi);
}

TEST_CASE("inverse-multiquadric plugin loads through the registry", "[basis-inverse-multiquadric][registry]") {
  Registry registry;
  const ComponentInfo& info = testing::require_basis_plugin(registry, "inverse-multiquadric");
  REQUIRE_THROWS_AS(validate_params(info.params, {{"c", -1.0}}, "plugin inverse-multiquadric"),
                    ParameterError);
  const Params params =
      validate_params(info.params, {{"c", 2.0}}, "plugin inverse-multiquadric");
  testing::check_registered_euclidean_basis(*registry.make_basis("inverse-multiquadric", params), phi);
}

TEST_CASE("inverse multiquadric keeps a c whose square overflows, in the map and in the state",
          "[basis-inverse-multiquadric]") {
  // c = 1e300: c^2 overflows to inf, so the state keeps c itself (sqrt(c^2) = inf is refused).
  InverseMultiquadricBasis basis({1e300});
  const State state = basis.state();
  REQUIRE(std::get<double>(state.at("c")) == 1e300);
  InverseMultiquadricBasis restored({1.0});
  restored.load_state(state);
  // phi = 1 / sqrt(r^2 + c^2) = 1 / c for r << c: 1e-300, not the 0 that 1/sqrt(inf) gives.
  const Matrix got = mapped(restored, {0.0, 3.0});
  REQUIRE(got(0, 0) == Approx(1e-300).epsilon(1e-15));
  REQUIRE(got(0, 1) == Approx(1e-300).epsilon(1e-15));
  Matrix r2 = {{4.0}};
  restored.log_map(r2);
  REQUIRE(r2(0, 0) == Approx(-std::log(1e300)).epsilon(1e-14));
}

TEST_CASE("inverse multiquadric refuses c below 1e-100, where the output fit's phi^2 sums "
          "overflow", "[basis-inverse-multiquadric][registry]") {
  Registry registry;
  const ComponentInfo& info = testing::require_basis_plugin(registry, "inverse-multiquadric");
  REQUIRE(validate_params(info.params, {{"c", 1e300}}, "plugin inverse-multiquadric").real("c") ==
          1e300);
  REQUIRE(validate_params(info.params, {{"c", 1e-100}}, "plugin inverse-multiquadric").real("c") ==
          1e-100);
  REQUIRE_THROWS_AS(validate_params(info.params, {{"c", 1e-300}}, "plugin inverse-multiquadric"),
                    ParameterError);
}
