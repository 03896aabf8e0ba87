// An output layer may declare the held-out error its weight penalty is chosen by
// (OutputLayer::held_out_error): the trainer's cross-validated path then scores every alpha by
// it, not by the squared error (an L1 output's penalty chosen by its absolute error).
#include <algorithm>
#include <cmath>
#include <memory>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/numerics/least_squares.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/plugin_dir.hpp"
#include "radial/training/trainer.hpp"
#include "radial/network/weight_penalty.hpp"

namespace {

using radial::Matrix;

// Ridge least squares by the normal equations, (Phi^T Phi + H) w = Phi^T t, declared not the
// closed form's least squares (so the trainer takes the cross-validated path); with
// `absolute`, scored by its held-out mean absolute error.
class Ridge final : public radial::OutputLayer {
 public:
  explicit Ridge(bool absolute) : absolute_(absolute) {}
  radial::OutputWeights fit(const radial::TrainingProblem& problem,
                            const radial::WeightPenalty* penalty,
                            radial::FitContext& ctx) override {
    const Matrix phi = problem.design.materialise();
    const Matrix t = radial::targets_for(radial::Link::Identity, problem.data);
    const std::size_t p = phi.shape(1);
    Matrix a = xt::zeros<double>({p, p}), b = xt::zeros<double>({p, t.shape(1)});
    for (std::size_t n = 0; n < phi.shape(0); ++n)
      for (std::size_t i = 0; i < p; ++i) {
        for (std::size_t j = 0; j < p; ++j) a(i, j) += phi(n, i) * phi(n, j);
        for (std::size_t c = 0; c < t.shape(1); ++c) b(i, c) += phi(n, i) * t(n, c);
      }
    if (penalty) penalty->add_hessian(xt::zeros<double>({p, std::size_t(1)}), a);
    radial::OutputWeights out;
    out.weights = radial::solve_symmetric_psd(a, b).x;
    ctx.report.stop(radial::Termination::Converged, "normal equations");
    return out;
  }
  std::optional<HeldOutError> held_out_error(const Matrix& outputs,
                                             const radial::Dataset& held_out) const override {
    if (!absolute_) return std::nullopt;
    double sum = 0;
    for (std::size_t n = 0; n < outputs.shape(0); ++n)
      sum += std::fabs(outputs(n, 0) - held_out.values(n));
    return HeldOutError{"mean_absolute_error", sum};
  }

 private:
  bool absolute_;
};

void register_layers(radial::Registrar& r) {
  radial::ComponentInfo info;
  info.summary = "ridge by the normal equations, scored by its absolute error";
  info.paper = "test";
  info.id = "ridge-absolute";
  r.add_output_layer(info, [](const radial::Params&) { return std::make_unique<Ridge>(true); });
  info.id = "ridge-squared";
  r.add_output_layer(info, [](const radial::Params&) { return std::make_unique<Ridge>(false); });
}

const radial::Registry& plugins() {
  static radial::Registry registry;
  static const bool loaded = (registry.load_folder(radial::testing::plugin_dir()),
                              registry.add_builtin(register_layers, "test_penalty_criterion.cpp"),
                              true);
  (void)loaded;
  return registry;
}

radial::TrainingResult fit(const std::string& output) {
  const std::string text = R"(seed = 4
[data]
train = "data/sine.train.csv"
target = "y"
task = "regression"
standardize = false
[basis]
plugin = "gaussian"
width = 0.1
[centres]
plugin = "kmeans"
count = 12
[output]
plugin = ")" + output + R"("
[weight-penalty]
plugin = "weight-decay"
alpha = "choose"
)";
  return radial::train(
      radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/p.toml",
                             plugins(), {}),
      plugins());
}

}  // namespace

TEST_CASE("an output layer's own held-out error chooses its penalty") {
  const auto absolute = fit("ridge-absolute");
  const auto squared = fit("ridge-squared");
  REQUIRE(absolute.report.selection);
  REQUIRE(squared.report.selection);
  const auto& a = *absolute.report.selection;
  const auto& s = *squared.report.selection;
  CHECK(a.path_metric == "mean_absolute_error");
  CHECK(s.path_metric == "mse");
  // The same fits on the same folds: per alpha, MAE <= sqrt(MSE) (Jensen), and they differ.
  REQUIRE(a.path_alphas.size() >= 3);
  const std::size_t common = std::min(a.path_alphas.size(), s.path_alphas.size());
  for (std::size_t i = 0; i < common; ++i) {
    REQUIRE(a.path_alphas[i] == s.path_alphas[i]);
    CHECK(a.path_errors[i] <= std::sqrt(s.path_errors[i]) * (1 + 1e-12));
    CHECK(a.path_errors[i] != s.path_errors[i]);
  }
  // The alpha chosen is the one of the smallest absolute error on the path.
  const auto best = std::min_element(a.path_errors.begin(), a.path_errors.end());
  double alpha = 0;
  for (const auto& [key, value] : a.chosen)
    if (key == "weight-penalty.alpha") alpha = std::get<double>(value);
  CHECK(alpha == a.path_alphas[std::size_t(best - a.path_errors.begin())]);
}
