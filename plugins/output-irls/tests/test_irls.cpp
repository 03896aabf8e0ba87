// The `irls` output layer: registration through the registry, and maximum-likelihood outputs on
// a saturated design (one indicator per group plus the bias), where the closed form is known:
// the fitted probabilities are the class frequencies within each group, and linear outputs are
// the group means of the targets (the checks are shared with the other GLM trainers); the
// large-data start and Hessian reuse against the paper's iterations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/testing/penalties.hpp"
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

// Issue 24: on many rows IRLS starts from its fit on every 8th row block and keeps its Hessian
// near the minimum (both beyond the paper). They must reach the paper's minimum: the gradient
// vanishes there (first-order optimality, computed here), the paper's IRLS (both off) lands on
// the same weights, and the thread count changes no bit.
TEST_CASE("irls on many rows: the subsample start and the kept Hessian reach the minimum",
          "[output][irls]") {
  using namespace radial::plugins;
  const std::size_t n = 70000, m = 8, c = m + 1;
  REQUIRE(n >= subsample_start_rows);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(-3.0, 3.0), unit(0.0, 1.0);
  Matrix phi = xt::zeros<double>({n, c}), targets = xt::zeros<double>({n, std::size_t(1)});
  for (std::size_t i = 0; i < n; ++i) {
    const double u = uniform(rng);
    for (std::size_t j = 0; j < m; ++j) {
      const double centre = -3.0 + 6.0 * double(j) / double(m - 1);
      phi(i, j) = std::exp(-(u - centre) * (u - centre) / 0.6);
    }
    phi(i, m) = 1.0;
    targets(i, 0) = unit(rng) < 1.0 / (1.0 + std::exp(-4.0 * u)) ? 1.0 : 0.0;  // P(t = 1 | u)
  }
  const radial::testing::QuadraticPenalty decay(1e-3, false);  // weight decay, bias free
  const auto run = [&](bool fast, int threads, radial::FitContext& ctx) {
    radial::glm::Objective objective(phi, targets, radial::Link::Logistic, &decay);
    objective.set_threads(threads);
    IrlsOptions options;
    options.subsample_start = fast;
    options.reuse_hessian = fast;
    return irls(objective, options, ctx);
  };
  radial::FitContext paper_ctx(1), fast_ctx(1), fast2_ctx(1, 2);
  const Matrix paper = run(false, 1, paper_ctx);
  const Matrix fast = run(true, 1, fast_ctx);
  const Matrix fast2 = run(true, 2, fast2_ctx);
  REQUIRE(paper_ctx.report.converged());
  REQUIRE(fast_ctx.report.converged());
  // The subsample: blocks 0, 8, ..., 64 of 1024 rows.
  CHECK(fast_ctx.report.figures.at("subsample_rows") == 9.0 * 1024.0);
  CHECK(fast_ctx.report.figures.at("subsample_iterations") >= 1.0);
  CHECK(fast_ctx.report.figures.at("hessians_reused") >= 1.0);
  CHECK(paper_ctx.report.figures.count("subsample_rows") == 0);
  CHECK(paper_ctx.report.figures.at("hessians_reused") == 0.0);
  // The same minimum: weights to the stopping rule's 1e-4 and a vanishing gradient.
  radial::glm::Objective check(phi, targets, radial::Link::Logistic, &decay);
  Matrix g;
  for (const Matrix* w : {&paper, &fast}) {
    check.gradient(*w, g);
    CHECK(radial::glm::max_abs(g) < 1e-3);
  }
  double largest = 0;
  for (std::size_t j = 0; j < c; ++j) largest = std::max(largest, std::fabs(paper(j, 0) - fast(j, 0)));
  CHECK(largest < 1e-4);
  CHECK(fast_ctx.report.final_error == Approx(paper_ctx.report.final_error).epsilon(1e-10));
  CHECK(std::equal(fast.begin(), fast.end(), fast2.begin()));
  // The full-data passes with a Hessian: fewer than the paper's.
  CHECK(fast_ctx.report.iterations - std::size_t(fast_ctx.report.figures.at("hessians_reused")) <
        paper_ctx.report.iterations);
}
