// The cubic basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/registry.hpp>
#include <radial/testing/basis_checks.hpp>

#include "cubic.hpp"

using namespace radial;
using radial::plugins::CubicBasis;
using radial::testing::mapped;

namespace {

// phi(r) in closed form.
double phi(double r) { return r * r * r; }

}  // namespace

TEST_CASE("cubic matches its closed form, including r = 0", "[basis-cubic]") {
  const CubicBasis basis;
  REQUIRE(basis.metric() == Metric::Euclidean);
  const Matrix got = mapped(basis, {0.0, 1.0, 2.0, 1.5, std::sqrt(2.0), 1e-100});
  REQUIRE(got(0, 0) == 0.0);  // r = 0.0
  REQUIRE(got(0, 1) == Approx(1.0).epsilon(1e-14));  // r = 1.0
  REQUIRE(got(0, 2) == Approx(8.0).epsilon(1e-14));  // r = 2.0
  REQUIRE(got(0, 3) == Approx(3.375).epsilon(1e-14));  // r = 1.5
  REQUIRE(got(0, 4) == Approx(2.0 * std::sqrt(2.0)).epsilon(1e-14));  // r = std::sqrt(2.0)
  REQUIRE(got(0, 5) == Approx(1e-300).epsilon(1e-14));  // r = 1e-100
}

TEST_CASE("cubic: GEMM block, no state, NaN, and the plugin through the registry",
          "[basis-cubic][registry]") {
  testing::check_parameter_free_basis<CubicBasis>("cubic", phi);
}
