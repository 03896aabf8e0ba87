// The thin-plate basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/registry.hpp>
#include <radial/testing/basis_checks.hpp>

#include "thin_plate.hpp"

using namespace radial;
using radial::plugins::ThinPlateBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r > 0 ? r * r * std::log(r) : 0.0; }

}  // namespace

TEST_CASE("thin-plate matches its closed form, including r = 0", "[basis-thin-plate]") {
  testing::check_polyharmonic_log_values(ThinPlateBasis(), 1);
}

TEST_CASE("thin-plate is half of NETLAB's 'tps' r^2 log r^2", "[basis-thin-plate]") {
  // NETLAB rbffwd: z = n2 .* log(n2 + (n2 == 0)), with n2 the squared distance.
  const ThinPlateBasis basis;
  testing::check_half_of_netlab(
      basis, [](double n2) { return n2 * std::log(n2 + (n2 == 0 ? 1.0 : 0.0)); });
  REQUIRE_FALSE(basis.has_log_map());
}

TEST_CASE("thin-plate: GEMM block, no state, NaN, and the plugin through the registry",
          "[basis-thin-plate][registry]") {
  testing::check_parameter_free_basis<ThinPlateBasis>("thin-plate", phi);
}
