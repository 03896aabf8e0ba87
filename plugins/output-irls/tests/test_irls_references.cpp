// irls against independent sources: NETLAB 3.3's glmtrain on synth3 (errors to 1e-5 relative,
// iterations, and the Gaussian case's weights to 1e-4), scikit-learn's LogisticRegression with
// the matched L2 penalty (objective to 1e-8, coefficients to 1e-4, probabilities to 1e-6),
// separable classes (a warning and finite weights), and step control where NETLAB's plain
// Newton steps stop above the minimum (its gradient vanishes there: the problem is convex).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "irls.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/testing/glm_cases.hpp"
#include "radial/testing/registry.hpp"

using radial::FitContext;
using radial::Link;
using radial::Matrix;
using radial::glm::Objective;
namespace rp = radial::plugins;

TEST_CASE("irls: NETLAB parity on fixed centres", "[output][irls][netlab]") {
  glm_test::for_each_netlab_case([](const glm_test::NetlabCase& c, bool gaussian) {
    {
      // Linear outputs: one exact Newton step is the least-squares solution.
      Objective obj(c.phi, c.targets, Link::Identity);
      FitContext ctx(1);
      rp::IrlsOptions o;
      o.link = "identity";
      rp::irls(obj, o, ctx);
      CHECK(ctx.report.final_error == Approx(c.pinv_half_sse).epsilon(1e-5));
      CHECK(ctx.report.converged());
    }
    Objective obj(c.phi, c.targets, Link::Logistic);
    FitContext ctx(1);
    const Matrix w = rp::irls(obj, rp::IrlsOptions{}, ctx);
    CHECK(ctx.report.final_error == Approx(c.irls_error).epsilon(1e-5));
    CHECK(ctx.report.converged());
    // Plain Newton steps work here: no step was halved and the iteration count is NETLAB's.
    CHECK(ctx.report.figures.at("step_halvings") == 0);
    CHECK(ctx.report.iterations == c.irls_iterations);
    CHECK(ctx.report.flops > 0);
    CHECK(ctx.report.curve.size() == ctx.report.iterations);
    // NETLAB's r^2 log(r^2) basis is used directly, so the thin-plate weights compare as they are.
    const double scale = gaussian ? 1.0 : glm_test::max_abs_of(c.irls_weights);
    CHECK(glm_test::max_difference(w, c.irls_weights) < 1e-4 * scale);
  });
}

TEST_CASE("irls matches scikit-learn LogisticRegression with matched L2",
          "[output][irls][sklearn]") {
  const auto ref = glm_test::sklearn_logistic();
  const auto decay =
      glm_test::weight_decay(radial::testing::shipped_registry(), ref.at("alpha").get<double>());
  for (const std::string name : {"breast_cancer.csv", "wine.csv"}) {
    INFO(name);
    const auto& r = ref.at("cases").at(name);
    const radial::Dataset data = glm_test::read_classes(glm_test::example_data(name), true);
    const Link link = data.num_classes == 2 ? Link::Logistic : Link::Softmax;
    const Matrix phi = glm_test::with_bias(data.inputs);
    const std::size_t d = data.features();

    Objective obj(phi, radial::targets_for(link, data), link, decay.get());
    FitContext ctx(1);
    const Matrix w = rp::irls(obj, rp::IrlsOptions{}, ctx);
    CHECK(ctx.report.converged());
    CHECK(ctx.report.final_error == Approx(r.at("objective").get<double>()).epsilon(1e-8));
    const auto coef = r.at("coef").get<std::vector<std::vector<double>>>();
    const auto intercept = r.at("intercept").get<std::vector<double>>();
    if (link == Link::Logistic) {
      for (std::size_t j = 0; j < d; ++j) CHECK(w(j, 0) == Approx(coef[0][j]).margin(1e-4));
      CHECK(w(d, 0) == Approx(intercept[0]).margin(1e-4));
    } else {
      // Coefficients are unique under the penalty; the unpenalised biases up to a shift.
      const std::size_t k = data.num_classes;
      double mean_ours = 0, mean_ref = 0;
      for (std::size_t c = 0; c < k; ++c) {
        for (std::size_t j = 0; j < d; ++j) CHECK(w(j, c) == Approx(coef[c][j]).margin(1e-4));
        mean_ours += w(d, c) / double(k);
        mean_ref += intercept[c] / double(k);
      }
      for (std::size_t c = 0; c < k; ++c)
        CHECK(w(d, c) - mean_ours == Approx(intercept[c] - mean_ref).margin(1e-4));
    }
    const auto p_ref = r.at("probabilities_first_rows").get<std::vector<std::vector<double>>>();
    const Matrix y = obj.outputs_at(w);
    for (std::size_t n = 0; n < p_ref.size(); ++n) {
      const double ours = link == Link::Logistic ? y(n, 0) : y(n, 2);
      const double theirs = link == Link::Logistic ? p_ref[n][1] : p_ref[n][2];
      CHECK(ours == Approx(theirs).margin(1e-6));
    }
  }
}

TEST_CASE("irls on separable data: a warning and finite weights; a penalty converges",
          "[output][irls][separable]") {
  const auto decay = glm_test::weight_decay(radial::testing::shipped_registry(), 0.1);
  for (const std::size_t classes : {std::size_t(2), std::size_t(3)}) {
    INFO(classes << " classes");
    const radial::Dataset data = glm_test::separable(classes);
    const Link link = classes == 2 ? Link::Logistic : Link::Softmax;
    const Matrix phi = glm_test::with_bias(data.inputs);
    const Matrix t = radial::targets_for(link, data);
    for (const auto hessian :
         {radial::glm::HessianKind::Exact, radial::glm::HessianKind::Simplified}) {
      rp::IrlsOptions o;
      o.hessian = hessian;
      {
        Objective obj(phi, t, link);
        FitContext ctx(1);
        const Matrix w = rp::irls(obj, o, ctx);
        CHECK(radial::glm::all_finite(w));
        CHECK(glm_test::has_warning(ctx, "separable-data"));
        CHECK_FALSE(ctx.report.converged());
        CHECK(std::isfinite(ctx.report.final_error));
      }
      {
        Objective obj(phi, t, link, decay.get());
        FitContext ctx(1);
        const Matrix w = rp::irls(obj, o, ctx);
        CHECK(radial::glm::all_finite(w));
        CHECK_FALSE(glm_test::has_warning(ctx, "separable-data"));
        CHECK(ctx.report.converged());
      }
    }
  }
}

namespace {

// 20 k-means centres (seeded) and Gaussian variances `scale` times the mean cluster spread per
// dimension: narrow enough that the outputs saturate in places.
Matrix saturating_design(const radial::Dataset& data, double scale, unsigned seed) {
  std::mt19937_64 rng(seed);
  radial::KMeansOptions ko;
  ko.count = 20;
  const auto km = radial::kmeans(data.inputs, ko, rng);
  double spread = 0;
  for (double v : km.cluster_spread) spread += v;
  spread /= 20.0;
  Matrix widths = xt::zeros<double>({std::size_t(20), std::size_t(1)});
  for (auto& v : widths) v = scale * spread / double(data.features());
  return glm_test::gaussian_design(data.inputs, km.centres, widths);
}

struct Outcome {
  double plain = 0, controlled = 0, gradient = 0;  // gradient: largest |dE/dw| at `controlled`
  bool plain_warned = false;
};

// IRLS without and with step control, weight decay 1e-6 (a finite, unique minimum).
Outcome run(const radial::Dataset& data, Link link, const Matrix& phi) {
  const auto decay = glm_test::weight_decay(radial::testing::shipped_registry(), 1e-6);
  const Matrix t = radial::targets_for(link, data);
  Outcome o;
  for (const bool control : {false, true}) {
    Objective obj(phi, t, link, decay.get());
    FitContext ctx(1);
    rp::IrlsOptions options;
    options.step_control = control;
    const Matrix w = rp::irls(obj, options, ctx);
    REQUIRE(radial::glm::all_finite(w));
    if (control) {
      o.controlled = ctx.report.final_error;
      CHECK(ctx.report.converged());
      CHECK(ctx.report.figures.at("step_halvings") > 0);
      Matrix g;
      obj.gradient(w, g);
      for (const double v : g) o.gradient = std::max(o.gradient, std::fabs(v));
    } else {
      o.plain = ctx.report.final_error;
      o.plain_warned = glm_test::has_warning(ctx, "error-increased");
    }
  }
  return o;
}

}  // namespace

// NETLAB's glmtrain stops at the first error increase ("Error has increased: terminating"),
// above the minimum; step_control = false reproduces that rule.
TEST_CASE("irls step control reaches the minimum where plain Newton stops above it",
          "[output][irls][step-control]") {
  SECTION("20 Gaussian centres on synth3, logistic") {
    const radial::Dataset data =
        glm_test::read_classes(glm_test::example_data("synth3_train.csv"), false);
    const Outcome o = run(data, Link::Logistic, saturating_design(data, 1.0, 1));
    CHECK(o.gradient < 1e-6);
    CHECK(o.plain_warned);
    CHECK(o.plain > o.controlled * (1 + 1e-3));
  }
  SECTION("20 Gaussian centres on iris, softmax with the exact Hessian") {
    const radial::Dataset data = glm_test::read_classes(glm_test::example_data("iris.csv"), true);
    for (unsigned seed : {1u, 2u, 3u}) {
      INFO("k-means seed " << seed);
      const Outcome o = run(data, Link::Softmax, saturating_design(data, 4.0, seed));
      CHECK(o.gradient < 1e-6);
      CHECK(o.plain_warned);
      CHECK(o.plain > o.controlled * (1 + 1e-2));
    }
  }
}
