// The `network-scg` refiner through pipelines: the checks every refiner passes
// (radial/testing/refiner_checks.hpp).
#include <radial/testing/refiner_checks.hpp>

TEST_CASE("network-scg refines from the two-stage fit and never ends above it",
          "[refine][scg]") {
  radial::testing::check_refiner("network-scg");
}
