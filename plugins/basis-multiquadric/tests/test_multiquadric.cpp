// The multiquadric basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/errors.hpp>
#include <radial/registry.hpp>
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
  const MultiquadricBasis basis(2.0);
  REQUIRE(basis.metric() == Metric::Euclidean);
  const Matrix got = mapped(basis, {0.0, 3.0, 1.5, 1e3});
  REQUIRE(got(0, 0) == Approx(2.0).epsilon(1e-14));  // r = 0.0
  REQUIRE(got(0, 1) == Approx(std::sqrt(13.0)).epsilon(1e-14));  // r = 3.0
  REQUIRE(got(0, 2) == Approx(2.5).epsilon(1e-14));  // r = 1.5
  REQUIRE(got(0, 3) == Approx(std::sqrt(1e6 + 4.0)).epsilon(1e-14));  // r = 1e3
}

TEST_CASE("multiquadric on a block of distances from the GEMM identity", "[basis-multiquadric]") {
  testing::check_gemm_block(MultiquadricBasis(2.0), phi);
}

TEST_CASE("multiquadric log map and state", "[basis-multiquadric]") {
  MultiquadricBasis basis(2.0);
  REQUIRE(basis.has_log_map());
  Matrix r2 = {{0.0, 9.0, 2.25}};
  basis.log_map(r2);
  REQUIRE(r2(0, 0) == Approx(0.5 * std::log(4.0)).epsilon(1e-14));
  REQUIRE(r2(0, 1) == Approx(0.5 * std::log(13.0)).epsilon(1e-14));
  REQUIRE(r2(0, 2) == Approx(0.5 * std::log(6.25)).epsilon(1e-14));

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
