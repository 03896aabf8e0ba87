// IRLS against scikit-learn's LogisticRegression (tests/reference/sklearn_logistic.py, values
// in tests/reference/sklearn_logistic.json), the three optimisers agreeing on the minimum, and
// separable data handled without NaN.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../../plugins/output-bfgs/bfgs.hpp"
#include "../../plugins/output-irls/irls.hpp"
#include "../../plugins/output-scg/scg.hpp"
#include "glm_test_support.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/registry.hpp"
#include "radial/testing/registry.hpp"

using radial::FitContext;
using radial::Link;
using radial::Matrix;
using radial::glm::Objective;
namespace rp = radial::plugins;

namespace {

nlohmann::json reference() {
  std::ifstream in(radial::testing::source_dir() / "tests" / "reference" /
                   "sklearn_logistic.json");
  return nlohmann::json::parse(in);
}

// The weight-decay plugin through the registry, alpha/2 ||w||^2 without the bias.
std::shared_ptr<radial::WeightPenalty> weight_decay(const radial::Registry& registry,
                                                    double alpha) {
  const auto& info = registry.require(radial::Slot::WeightPenalty, "weight-decay");
  return registry.make_weight_penalty(
      "weight-decay", radial::validate_params(info.params, {{"alpha", alpha}}, "test"));
}

bool has_warning(const FitContext& ctx, const std::string& guard) {
  for (const auto& w : ctx.report.warnings)
    if (w.guard == guard) return true;
  return false;
}

}  // namespace

TEST_CASE("irls matches scikit-learn LogisticRegression with matched L2", "[glm][sklearn]") {
  const auto ref = reference();
  const radial::Registry& registry = radial::testing::shipped_registry();
  const double alpha = ref.at("alpha").get<double>();
  const auto decay = weight_decay(registry, alpha);
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

    // The three optimisers reach the same minimum (SCG the same or slightly above).
    const double minimum = ctx.report.final_error;
    {
      Objective o2(phi, radial::targets_for(link, data), link, decay.get());
      FitContext c2(1);
      rp::bfgs(o2, rp::BfgsOptions{}, c2);
      CHECK(c2.report.converged());
      CHECK(c2.report.final_error == Approx(minimum).epsilon(1e-6));
    }
    {
      Objective o3(phi, radial::targets_for(link, data), link, decay.get());
      FitContext c3(1);
      rp::scg(o3, rp::ScgOptions{}, c3);
      CHECK(c3.report.final_error >= minimum * (1 - 1e-9));
      CHECK(c3.report.final_error <= minimum * (1 + 1e-3));
    }
  }
}

namespace {

// Two well separated classes on a line, and three on a plane: the likelihood has no maximum.
radial::Dataset separable(std::size_t classes) {
  radial::Dataset data;
  const std::size_t per = 20, n = per * classes;
  data.inputs = xt::zeros<double>({n, std::size_t(2)});
  data.classes = xt::zeros<std::int64_t>({n});
  data.num_classes = classes;
  for (std::size_t c = 0; c < classes; ++c)
    for (std::size_t i = 0; i < per; ++i) {
      const double angle = 2 * M_PI * double(c) / double(classes);
      data.inputs(c * per + i, 0) = 3 * std::cos(angle) + 0.05 * double(i % 5);
      data.inputs(c * per + i, 1) = 3 * std::sin(angle) + 0.05 * double(i / 5);
      data.classes(c * per + i) = std::int64_t(c);
    }
  return data;
}

}  // namespace

TEST_CASE("separable data: warning, finite weights, no crash", "[glm][separable]") {
  const radial::Registry& registry = radial::testing::shipped_registry();
  const auto decay = weight_decay(registry, 0.1);
  for (const std::size_t classes : {std::size_t(2), std::size_t(3)}) {
    INFO(classes << " classes");
    const radial::Dataset data = separable(classes);
    const Link link = classes == 2 ? Link::Logistic : Link::Softmax;
    const Matrix phi = glm_test::with_bias(data.inputs);
    const Matrix t = radial::targets_for(link, data);
    for (const auto hessian : {radial::glm::HessianKind::Exact,
                               radial::glm::HessianKind::Simplified}) {
      rp::IrlsOptions o;
      o.hessian = hessian;
      {
        Objective obj(phi, t, link);
        FitContext ctx(1);
        const Matrix w = rp::irls(obj, o, ctx);
        CHECK(radial::glm::all_finite(w));
        CHECK(has_warning(ctx, "separable-data"));
        CHECK_FALSE(ctx.report.converged());
        CHECK(std::isfinite(ctx.report.final_error));
      }
      {
        Objective obj(phi, t, link, decay.get());
        FitContext ctx(1);
        const Matrix w = rp::irls(obj, o, ctx);
        CHECK(radial::glm::all_finite(w));
        CHECK_FALSE(has_warning(ctx, "separable-data"));
        CHECK(ctx.report.converged());
      }
    }
    for (int optimiser = 0; optimiser < 2; ++optimiser) {
      Objective obj(phi, t, link);
      FitContext ctx(1);
      const Matrix w =
          optimiser == 0
              ? rp::scg(obj, rp::ScgOptions{}, ctx)
              : rp::bfgs(obj, rp::BfgsOptions{}, ctx);
      CHECK(radial::glm::all_finite(w));
      CHECK(std::isfinite(ctx.report.final_error));
    }
  }
}
