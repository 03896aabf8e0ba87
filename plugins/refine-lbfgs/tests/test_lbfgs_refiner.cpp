// The `lbfgs` refiner through pipelines: the checks every refiner passes
// (radial/testing/refiner_checks.hpp).
#include <radial/testing/refiner_checks.hpp>

TEST_CASE("lbfgs refines from the two-stage fit and never ends above it", "[refine][lbfgs]") {
  radial::testing::check_refiner("lbfgs");
}
