// The `network-bfgs` refiner through pipelines: the checks every refiner passes
// (radial/testing/refiner_checks.hpp).
#include <radial/testing/refiner_checks.hpp>

TEST_CASE("network-bfgs refines from the two-stage fit and never ends above it",
          "[refine][bfgs]") {
  radial::testing::check_refiner("network-bfgs");
}
