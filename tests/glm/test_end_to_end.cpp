// The irls, bfgs and scg plugins through the registry, on a streamed design matrix built by the
// framework from NETLAB's centres with the gaussian and thin-plate basis plugins: the same
// optima as NETLAB (tests/data/netlab/README.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "radial/testing/glm_cases.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"

using radial::Matrix;

namespace {

radial::Params params_for(const radial::Registry& registry, radial::Slot slot,
                          const std::string& id,
                          const std::map<std::string, radial::ParamValue>& given) {
  return radial::validate_params(registry.require(slot, id).params, given, "test " + id);
}

// Same shape and every entry equal (not approximately).
bool identical(const Matrix& a, const Matrix& b) {
  return a.shape() == b.shape() && std::equal(a.begin(), a.end(), b.begin());
}

}  // namespace

TEST_CASE("output plugins through the registry reach NETLAB's optima", "[glm][registry]") {
  const radial::Registry& registry = radial::testing::shipped_registry();
  const radial::Dataset data =
      glm_test::read_classes(glm_test::example_data("synth3_train.csv"), false);
  for (const bool gaussian : {true, false}) {
    const auto dir =
        radial::testing::test_data("netlab") / (gaussian ? "gauss_s1_nh10_seed1" : "tps_nh10_seed1");
    INFO(dir.string());
    radial::Centres centres;
    centres.means = glm_test::read_csv(dir / "centres.csv", false);
    const double variance =
        gaussian ? glm_test::read_csv(dir / "widths.csv", false)(0, 0) : 0.0;
    std::shared_ptr<radial::Basis> basis =
        gaussian ? registry.make_basis("gaussian",
                                       params_for(registry, radial::Slot::Basis, "gaussian",
                                                  {{"width", std::sqrt(variance)}}))
                 : registry.make_basis("thin-plate",
                                       params_for(registry, radial::Slot::Basis, "thin-plate", {}));
    radial::FitContext prep(1);
    basis->prepare(centres, prep);
    radial::DesignMatrix design(data.inputs, centres, *basis);
    const radial::TrainingProblem problem{design, data, centres, *basis};
    // results.csv: the IRLS / quasi-Newton optimum and NETLAB's IRLS weights (Gaussian basis:
    // the same basis values, so the same weights).
    const double optimum = gaussian ? 67.714701047188754 : 67.95967299883219;
    const Matrix netlab_w = glm_test::read_csv(dir / "weights_irls.csv", false);
    for (const std::string id : {"irls", "bfgs", "scg"}) {
      INFO(id);
      auto layer = registry.make_output_layer(
          id, params_for(registry, radial::Slot::Output, id, {{"link", std::string("auto")}}));
      radial::FitContext ctx(1);
      const radial::OutputWeights out = layer->fit(problem, nullptr, ctx);
      CHECK(out.link == radial::Link::Logistic);
      REQUIRE(out.weights.shape(0) == 11);
      if (id == "scg") {
        CHECK(ctx.report.final_error >= optimum * (1 - 1e-9));
        CHECK(ctx.report.final_error <= optimum * (1 + 1e-2));
        continue;
      }
      CHECK(ctx.report.converged());
      CHECK(ctx.report.final_error == Approx(optimum).epsilon(1e-5));
      CHECK(ctx.report.function_evaluations > 0);
      CHECK(ctx.report.gradient_evaluations > 0);
      CHECK(ctx.report.flops > 0);
      REQUIRE_FALSE(ctx.report.curve.empty());
      CHECK(ctx.report.curve.back().error == Approx(ctx.report.final_error));
      if (gaussian)
        for (std::size_t j = 0; j < 11; ++j) CHECK(out.weights(j, 0) == Approx(netlab_w(j, 0)).margin(1e-4));
      else {  // Radial's r^2 log r is half NETLAB's r^2 log r^2: basis weights double.
        for (std::size_t j = 0; j < 10; ++j)
          CHECK(out.weights(j, 0) == Approx(2 * netlab_w(j, 0)).margin(2e-4));
        CHECK(out.weights(10, 0) == Approx(netlab_w(10, 0)).margin(1e-4));
      }
    }
  }
}

TEST_CASE("targets read per block from the class indices give the objective of the N x K "
          "targets, bit for bit", "[glm][streaming]") {
  const radial::Registry& registry = radial::testing::shipped_registry();
  radial::Dataset data =
      glm_test::read_classes(glm_test::example_data("synth3_train.csv"), false);
  const auto dir = radial::testing::test_data("netlab") / "gauss_s1_nh10_seed1";
  radial::Centres centres;
  centres.means = glm_test::read_csv(dir / "centres.csv", false);
  auto basis = registry.make_basis(
      "gaussian", params_for(registry, radial::Slot::Basis, "gaussian", {{"width", 1.0}}));
  radial::FitContext prep(1);
  basis->prepare(centres, prep);
  // 64-row blocks: many blocks, the last one short (250 rows).
  const radial::DesignMatrix design(data.inputs, centres, *basis, false, 0, 64);
  radial::Dataset regression = data;
  regression.task = radial::Task::Regression;
  regression.values = xt::zeros<double>({data.rows()});
  for (std::size_t i = 0; i < data.rows(); ++i) regression.values(i) = data.inputs(i, 0);
  regression.num_classes = 0;
  const std::vector<std::pair<radial::Link, const radial::Dataset*>> cases = {
      {radial::Link::Logistic, &data}, {radial::Link::Softmax, &data},
      {radial::Link::Identity, &data}, {radial::Link::Identity, &regression}};
  for (const auto& [link, set] : cases) {
    INFO(radial::to_string(link) << (set == &regression ? " regression" : " classes"));
    radial::glm::Objective from_matrix(design, radial::targets_for(link, *set), link);
    radial::glm::Objective from_data(design, *set, link);
    REQUIRE(from_data.rows() == from_matrix.rows());
    REQUIRE(from_data.outputs() == from_matrix.outputs());
    Matrix block_m, block_d;
    from_matrix.targets_block(190, 60, block_m);
    from_data.targets_block(190, 60, block_d);
    CHECK(identical(block_m, block_d));
    Matrix w = xt::zeros<double>({from_data.cols(), from_data.outputs()});
    for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = 0.1 * std::sin(double(i));
    Matrix g_m, g_d, h_m, h_d;
    CHECK(from_matrix.hessian(w, radial::glm::HessianKind::Exact, g_m, h_m) ==
          from_data.hessian(w, radial::glm::HessianKind::Exact, g_d, h_d));
    CHECK(identical(g_m, g_d));
    CHECK(identical(h_m, h_d));
    CHECK(identical(radial::glm::linear_start(from_matrix),
                    radial::glm::linear_start(from_data)));
    CHECK(identical(radial::glm::smoothed_target_start(from_matrix),
                    radial::glm::smoothed_target_start(from_data)));
    // The N x K overload of the weighted normal equations equals the per-block one.
    const Matrix t = radial::targets_for(link, *set);
    Matrix system_m, system_d;
    radial::Vector rhs_m, rhs_d;
    from_matrix.weighted_normal_equations(xt::ones<double>(t.shape()), t, system_m, rhs_m);
    from_data.weighted_normal_equations(
        [](std::size_t, const Matrix& tb, Matrix& v, Matrix& z) {
          std::fill(v.begin(), v.end(), 1.0);
          z = tb;
        },
        system_d, rhs_d);
    CHECK(identical(system_m, system_d));
    CHECK(std::equal(rhs_m.begin(), rhs_m.end(), rhs_d.begin(), rhs_d.end()));
    CHECK(from_matrix.counters().flops == from_data.counters().flops);
  }
  // A link that does not fit the targets is refused as targets_for refuses it.
  CHECK_THROWS_AS(radial::glm::Objective(design, regression, radial::Link::Softmax),
                  radial::InputError);
}
