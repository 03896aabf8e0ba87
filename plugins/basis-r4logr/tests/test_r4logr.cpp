// The r4logr basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/testing/basis_checks.hpp>

#include "r4logr.hpp"

using namespace radial;
using radial::plugins::R4LogRBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r > 0 ? std::pow(r, 4) * std::log(r) : 0.0; }

}  // namespace

TEST_CASE("r4logr matches its closed form, including r = 0", "[basis-r4logr]") {
  testing::check_polyharmonic_log_values(R4LogRBasis(), 2);
}

TEST_CASE("r4logr is half of NETLAB's 'r4logr' r^4 log r^2", "[basis-r4logr]") {
  // NETLAB rbffwd: z = n2 .* n2 .* log(n2 + (n2 == 0)).
  testing::check_half_of_netlab(
      R4LogRBasis(), [](double n2) { return n2 * n2 * std::log(n2 + (n2 == 0 ? 1.0 : 0.0)); });
}

TEST_CASE("r4logr: GEMM block, no state, NaN, and the plugin through the registry",
          "[basis-r4logr][registry]") {
  testing::check_parameter_free_basis<R4LogRBasis>("r4logr", phi);
}
