// The `scg` output layer: registration through the registry, and maximum-likelihood outputs on
// a saturated design (one indicator per group plus the bias), where the closed form is known:
// the fitted probabilities are the class frequencies within each group, and linear outputs are
// the group means of the targets. The checks are shared with the other GLM trainers.
#include <catch2/catch.hpp>

#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/testing/output_layer_checks.hpp"
#include "scg.hpp"

TEST_CASE("scg: saturated-design frequencies, linear group means, registration",
          "[output][scg]") {
  radial::plugins::ScgOptions o;
  o.tolerance = 1e-9;  // SCG stops early at the default; the closed form is checked tightly
  radial::testing::check_glm_trainer(
      "scg", [&](radial::glm::Objective& objective, radial::FitContext& ctx) {
        return radial::plugins::scg(objective, o, ctx);
      });
}
