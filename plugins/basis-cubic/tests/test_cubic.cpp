// The cubic basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/testing/basis_checks.hpp>

#include "cubic.hpp"

using namespace radial;
using radial::plugins::CubicBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r * r * r; }

}  // namespace

TEST_CASE("cubic matches its closed form, including r = 0", "[basis-cubic]") {
  const CubicBasis basis;
  testing::check_values(basis, {{0.0, 0.0}, {1.0, 1.0}, {2.0, 8.0}, {1.5, 3.375},
                                {std::sqrt(2.0), 2.0 * std::sqrt(2.0)}, {1e-100, 1e-300}});
}

TEST_CASE("cubic: GEMM block, no state, NaN, and the plugin through the registry",
          "[basis-cubic][registry]") {
  testing::check_parameter_free_basis<CubicBasis>("cubic", phi);
}
