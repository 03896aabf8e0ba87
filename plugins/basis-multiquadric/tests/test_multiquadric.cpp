// The multiquadric basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/basis_checks.hpp>

#include "multiquadric.hpp"

using namespace radial;
using radial::plugins::MultiquadricBasis;
using radial::testing::mapped;

namespace {

// phi(r) in closed form.
double phi(double r) { return std::sqrt(r * r + 4.0); }

}  // namespace

TEST_CASE("multiquadric matches its closed form, including r = 0", "[basis-multiquadric]") {
  const MultiquadricBasis basis({2.0});
  testing::check_values(basis, {{0.0, 2.0}, {3.0, std::sqrt(13.0)}, {1.5, 2.5},
                                {1e3, std::sqrt(1e6 + 4.0)}});
}

TEST_CASE("multiquadric on a block of distances from the GEMM identity", "[basis-multiquadric]") {
  testing::check_gemm_block(MultiquadricBasis({2.0}), phi);
}

TEST_CASE("multiquadric log map and state", "[basis-multiquadric]") {
  const MultiquadricBasis basis({2.0});
  testing::check_quadric_log_map(basis, 1);
  testing::check_state_round_trip(basis, phi);
}

TEST_CASE("multiquadric plugin loads through the registry", "[basis-multiquadric][registry]") {
  Registry registry;
  const ComponentInfo& info = testing::require_basis_plugin(registry, "multiquadric");
  REQUIRE_THROWS_AS(validate_params(info.params, {{"c", 0.0}}, "plugin multiquadric"),
                    ParameterError);
  REQUIRE(validate_params(info.params, {}, "plugin multiquadric").real("c") == 1.0);
  const Params params = validate_params(info.params, {{"c", 2.0}}, "plugin multiquadric");
  testing::check_registered_euclidean_basis(*registry.make_basis("multiquadric", params), phi);
}

TEST_CASE("multiquadric keeps a c whose square underflows, in the map and in the state",
          "[basis-multiquadric]") {
  // c = 1e-300: c^2 underflows to 0, so the state keeps c itself (sqrt(c^2) = 0 is refused).
  MultiquadricBasis basis({1e-300});
  const State state = basis.state();
  REQUIRE(std::get<double>(state.at("c")) == 1e-300);
  MultiquadricBasis restored({1.0});
  restored.load_state(state);
  // phi(r) = sqrt(r^2 + c^2): r itself for r = 3, and c itself at r = 0.
  const Matrix got = mapped(restored, {0.0, 3.0});
  REQUIRE(got(0, 0) == 1e-300);
  REQUIRE(got(0, 1) == Approx(3.0).epsilon(1e-15));
  Matrix r2 = {{0.0}};
  restored.log_map(r2);
  REQUIRE(r2(0, 0) == Approx(std::log(1e-300)).epsilon(1e-14));
}

TEST_CASE("multiquadric refuses c above 1e100, where the output fit's phi^2 sums overflow",
          "[basis-multiquadric][registry]") {
  Registry registry;
  const ComponentInfo& info = testing::require_basis_plugin(registry, "multiquadric");
  REQUIRE(validate_params(info.params, {{"c", 1e100}}, "plugin multiquadric").real("c") == 1e100);
  REQUIRE(validate_params(info.params, {{"c", 1e-300}}, "plugin multiquadric").real("c") == 1e-300);
  REQUIRE_THROWS_AS(validate_params(info.params, {{"c", 1e300}}, "plugin multiquadric"),
                    ParameterError);
  // Far above c^2's overflow the map stays finite: hypot(r, c) = c.
  const Matrix got = mapped(MultiquadricBasis({1e300}), {0.0, 5.0});
  REQUIRE(got(0, 0) == 1e300);
  REQUIRE(got(0, 1) == 1e300);
}
