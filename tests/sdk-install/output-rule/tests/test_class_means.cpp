// The out-of-tree class-means output and its probit rule: the rule is registered by loading the
// plugin, weights and predictions equal the formulas of class_means.hpp evaluated here by hand,
// a model using the rule survives the model store, and the layer passes the conformance kit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>

#include <radial/network/basis.hpp>
#include <radial/network/design_matrix.hpp>
#include <radial/model/model_store.hpp>
#include <radial/model/network.hpp>
#include <radial/network/prediction_rule.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>

using radial::conformance::plugin_under_test;

namespace {

// phi(r) = exp(-r^2 / 2).
class UnitGaussian final : public radial::Basis {
 public:
  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres&, radial::FitContext&) override {}
  void map(radial::Matrix& r2) const override {
    for (double& v : r2) v = std::exp(-0.5 * v);
  }
  radial::State state() const override { return {}; }
  void load_state(const radial::State&) override {}
};

double phi(double x, double c) { return std::exp(-0.5 * (x - c) * (x - c)); }
double normal_cdf(double a) { return 0.5 * std::erfc(-a / std::sqrt(2.0)); }

}  // namespace

TEST_CASE("loading the plugin registers its probit rule beside the framework's") {
  plugin_under_test();
  REQUIRE(radial::find_prediction_rule("probit") != nullptr);
  for (const char* builtin : {"identity", "logistic", "softmax", "bayes"})
    CHECK(radial::find_prediction_rule(builtin) != nullptr);
}

TEST_CASE("class-means weights and probit predictions equal the formulas by hand") {
  // One feature, centres at -1 and 1, rows of class 0 at -2, -1, 0 and of class 1 at 0.5, 2.
  radial::Dataset data;
  data.inputs = radial::Matrix{{-2.0}, {-1.0}, {0.0}, {0.5}, {2.0}};
  data.classes = radial::Labels{0, 0, 0, 1, 1};
  data.num_classes = 2;
  data.class_values = {0.0, 1.0};
  data.task = radial::Task::Classification;
  radial::Centres centres;
  centres.means = radial::Matrix{{-1.0}, {1.0}};
  const auto basis = std::make_shared<UnitGaussian>();
  const radial::DesignMatrix design(data.inputs, centres, *basis);
  const radial::TrainingProblem problem{design, data, centres, *basis};

  const auto& info = plugin_under_test().require(radial::Slot::Output, "class-means");
  auto layer = plugin_under_test().make_output_layer(
      "class-means", radial::validate_params(info.params, {{"scale", 2.0}}, "test"));
  radial::FitContext ctx(1);
  const radial::OutputWeights w = layer->fit(problem, nullptr, ctx);
  REQUIRE(w.link == radial::Link("probit"));
  REQUIRE(w.weights.shape(0) == 3);
  REQUIRE(w.weights.shape(1) == 1);

  const double c[2] = {-1.0, 1.0};
  double expected[3] = {0, 0, 0};
  for (int j = 0; j < 2; ++j) {
    const double m0 = (phi(-2, c[j]) + phi(-1, c[j]) + phi(0, c[j])) / 3.0;
    const double m1 = (phi(0.5, c[j]) + phi(2, c[j])) / 2.0;
    expected[j] = 2.0 * (m1 - m0);
    expected[2] -= expected[j] * (m1 + m0) / 2.0;
  }
  for (int j = 0; j < 3; ++j) CHECK(w.weights(j, 0) == Approx(expected[j]).epsilon(1e-14));

  radial::Model model;
  model.task = radial::Task::Classification;
  model.feature_names = {"x"};
  model.class_values = {0.0, 1.0};
  model.centres = centres;
  model.basis_id = "unit-gaussian";
  model.output_id = "class-means";
  model.link = w.link;
  model.weights = w.weights;
  // Through the model store: the link is kept by name and the weights are checked by the rule.
  const radial::Model stored =
      radial::deserialize_model(radial::serialize_model(model), "probit.model");
  REQUIRE(stored.link == radial::Link("probit"));
  const radial::Network network(stored, basis);
  const radial::Matrix grid = {{-3.0}, {-0.5}, {0.25}, {1.0}, {4.0}};
  const radial::Matrix y = network.predict(grid);
  REQUIRE(y.shape(1) == 2);
  for (std::size_t n = 0; n < grid.shape(0); ++n) {
    const double x = grid(n, 0);
    const double a = expected[0] * phi(x, -1) + expected[1] * phi(x, 1) + expected[2];
    CHECK(y(n, 1) == Approx(normal_cdf(a)).epsilon(1e-14));
    CHECK(y(n, 0) == Approx(normal_cdf(-a)).epsilon(1e-14));
  }

  // The rule's own check: a probit model has 2 classes.
  radial::Model three = model;
  three.class_values = {0.0, 1.0, 2.0};
  CHECK_THROWS_WITH(radial::serialize_model(three), Catch::Contains("probit output is for 2"));
}

TEST_CASE("class-means passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "class-means");
}
