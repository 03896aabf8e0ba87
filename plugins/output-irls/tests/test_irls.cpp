// The `irls` output layer: registration through the registry, and maximum-likelihood outputs on
// a saturated design (one indicator per group plus the bias), where the closed form is known:
// the fitted probabilities are the class frequencies within each group, and linear outputs are
// the group means of the targets. The checks are shared with the other GLM trainers.
#include <catch2/catch.hpp>

#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/testing/output_layer_checks.hpp"
#include "irls.hpp"

using radial::Matrix;

TEST_CASE("irls: saturated-design frequencies, linear group means, registration",
          "[output][irls]") {
  radial::testing::check_glm_trainer(
      "irls", [](radial::glm::Objective& objective, radial::FitContext& ctx) {
        return radial::plugins::irls(objective, radial::plugins::IrlsOptions{}, ctx);
      });
}

// Issue 25, defect 6: with 1,000 classes the exact softmax Hessian took 4.3 GB and minutes per
// iteration. Above glm::max_exact_softmax_weights weights the block-diagonal Hessian is used
// instead, with a warning: the same weights, bit for bit, as asking for it.
TEST_CASE("irls: above the exact Hessian's size, the simplified one with a warning",
          "[output][irls]") {
  using namespace radial::plugins;
  const std::size_t n = 400, m = 49, k = 42;  // K (M + 1) = 2100 weights > 2048
  REQUIRE(k * (m + 1) > radial::glm::max_exact_softmax_weights);
  Matrix phi = xt::zeros<double>({n, m + 1}), targets = xt::zeros<double>({n, k});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) phi(i, j) = std::exp(-0.01 * double((i * 7 + j * 13) % 97));
    phi(i, m) = 1.0;
    targets(i, (i * 5) % k) = 1.0;
  }
  const auto run = [&](radial::glm::HessianKind kind, radial::FitContext& ctx) {
    radial::glm::Objective objective(phi, targets, radial::Link::Softmax);
    IrlsOptions options;
    options.hessian = kind;
    options.iterations = 3;
    return irls(objective, options, ctx);
  };
  radial::FitContext exact_ctx(1), simplified_ctx(1);
  const Matrix asked_exact = run(radial::glm::HessianKind::Exact, exact_ctx);
  const Matrix simplified = run(radial::glm::HessianKind::Simplified, simplified_ctx);
  bool warned = false;
  for (const auto& w : exact_ctx.report.warnings) warned |= w.guard == "exact-hessian-too-large";
  CHECK(warned);
  REQUIRE(asked_exact.shape() == simplified.shape());
  CHECK(std::equal(asked_exact.begin(), asked_exact.end(), simplified.begin()));
}
