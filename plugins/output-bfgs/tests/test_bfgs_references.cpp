// bfgs against independent sources: NETLAB 3.3's quasi-Newton (netopt 'quasinew') on synth3,
// its error to 1e-5 relative and, in the Gaussian case, the weights of NETLAB's IRLS (the same
// unique minimum) to 1e-4; scikit-learn's LogisticRegression objective with the matched L2
// penalty to 1e-6; finite weights on separable classes.
#include <catch2/catch.hpp>

#include <cmath>

#include "bfgs.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/testing/glm_cases.hpp"
#include "radial/testing/registry.hpp"

using namespace radial;
using radial::glm::Objective;
namespace rp = radial::plugins;

TEST_CASE("bfgs: NETLAB parity on fixed centres", "[output][bfgs][netlab]") {
  glm_test::for_each_netlab_case([](const glm_test::NetlabCase& c, bool gaussian) {
    REQUIRE(c.quasinew_error > 60);  // NETLAB's quasi-Newton figure was read
    Objective obj(c.phi, c.targets, Link::Logistic);
    FitContext ctx(1);
    const Matrix w = rp::bfgs(obj, rp::BfgsOptions{}, ctx);
    CHECK(ctx.report.final_error == Approx(c.quasinew_error).epsilon(1e-5));
    CHECK(ctx.report.converged());
    if (gaussian) CHECK(glm_test::max_difference(w, c.irls_weights) < 1e-4);
  });
}

TEST_CASE("bfgs reaches scikit-learn's LogisticRegression minimum with matched L2",
          "[output][bfgs][sklearn]") {
  const auto ratios = glm_test::error_over_sklearn([](Objective& obj, FitContext& ctx) {
    return rp::bfgs(obj, rp::BfgsOptions{}, ctx);
  });
  for (const auto& [ratio, converged] : ratios) {
    CHECK(converged);
    CHECK(ratio == Approx(1.0).epsilon(1e-6));
  }
}

TEST_CASE("bfgs on separable data: finite weights and error", "[output][bfgs][separable]") {
  glm_test::check_finite_on_separable([](Objective& obj, FitContext& ctx) {
    return rp::bfgs(obj, rp::BfgsOptions{}, ctx);
  });
}
