// The irls, bfgs and scg plugins through the registry, on a streamed design matrix built by the
// framework from NETLAB's centres with the gaussian and thin-plate basis plugins: the same
// optima as NETLAB (tests/data/netlab/README.md).
#include <catch2/catch.hpp>

#include <cmath>

#include "glm_test_support.hpp"
#include "radial/design_matrix.hpp"
#include "radial/output_layer.hpp"
#include "radial/registry.hpp"

using radial::Matrix;

namespace {

radial::Params params_for(const radial::Registry& registry, radial::Slot slot,
                          const std::string& id,
                          const std::map<std::string, radial::ParamValue>& given) {
  return radial::validate_params(registry.require(slot, id).params, given, "test " + id);
}

}  // namespace

TEST_CASE("output plugins through the registry reach NETLAB's optima", "[glm][registry]") {
  radial::Registry registry;
  registry.load_folder(radial::testing::plugin_dir());
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
      CHECK(ctx.report.converged);
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
