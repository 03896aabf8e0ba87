// The trainer end to end through the real plugins.
#include <cmath>
#include <memory>
#include <random>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/model/network.hpp"
#include "radial/core/params.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

radial::Pipeline two_class(const std::vector<std::string>& overrides = {}) {
  const auto file = radial::testing::source_dir() / "docs/examples/two-class-kmeans-thin-plate.toml";
  return radial::read_pipeline(file, plugins(), overrides);
}

// n rows of two classes, x1 ~ N(+-shift, 1) by class and x2 ~ N(0, 1).
radial::Dataset two_gaussians(std::size_t n, std::uint64_t seed, double shift) {
  radial::Dataset data;
  data.task = radial::Task::Classification;
  data.num_classes = 2;
  data.class_values = {0, 1};
  data.feature_names = {"x1", "x2"};
  data.inputs = radial::Matrix::from_shape({n, std::size_t(2)});
  data.classes = radial::Labels::from_shape({n});
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    data.classes(i) = std::int64_t(rng() % 2);
    data.inputs(i, 0) = normal(rng) + (data.classes(i) ? shift : -shift);
    data.inputs(i, 1) = normal(rng);
  }
  return data;
}

// The pipeline `text` (its paths relative to docs/examples) trained on `data`.
radial::TrainingResult train_on(const std::string& text, const radial::Dataset& data) {
  const radial::Pipeline p = radial::parse_pipeline(
      text, radial::testing::source_dir() / "docs/examples/s.toml", plugins());
  return radial::train(p, plugins(), data, std::nullopt);
}

// A trained model's basis with its state loaded, as evaluate_metrics takes it.
std::shared_ptr<radial::Basis> basis_of(const radial::Model& m) {
  const radial::ComponentInfo* info = plugins().find(radial::Slot::Basis, m.basis_id);
  REQUIRE(info != nullptr);
  std::shared_ptr<radial::Basis> basis = plugins().make_basis(
      m.basis_id, radial::validate_params(info->params, m.basis_params, "test"));
  basis->load_state(m.basis_state);
  return basis;
}

}  // namespace

TEST_CASE("training twice with the same seed gives the same network") {
  const auto a = radial::train(two_class(), plugins());
  const auto b = radial::train(two_class(), plugins());
  CHECK(a.model.centres.means == b.model.centres.means);
  CHECK(a.model.weights == b.model.weights);
  CHECK(a.report.test->misclassified == b.report.test->misclassified);
}

TEST_CASE("another seed moves the k-means centres") {
  const auto a = radial::train(two_class(), plugins());
  radial::TrainOptions options;
  options.seed = 99;
  const auto b = radial::train(two_class(), plugins(), options);
  CHECK(a.model.centres.means != b.model.centres.means);
  CHECK(b.report.seed == 99);
}

TEST_CASE("the model records what was trained") {
  const auto r = radial::train(two_class({"centres.count=6"}), plugins());
  const radial::Model& m = r.model;
  CHECK(m.centres.count() == 6);
  CHECK(m.weights.shape(0) == 7);  // M + 1 rows, bias last
  CHECK(m.weights.shape(1) == 2);  // 1-of-2 targets
  CHECK(m.basis_id == "thin-plate");
  CHECK(m.output_id == "least-squares");
  CHECK(m.feature_names == std::vector<std::string>{"x1", "x2"});
  CHECK(m.target_name == "label");
  CHECK(m.class_values == std::vector<double>{0, 1});
  CHECK(m.pipeline_text.find("centres.count=6") != std::string::npos);
  CHECK(m.plugin_versions.count("kmeans") == 1);
  CHECK(m.training_summary.find("\"warnings\"") != std::string::npos);
}

TEST_CASE("cross-validation covers every row once and refits per fold") {
  const auto r = radial::train(two_class({"evaluate.folds=5", "evaluate.committee=2"}), plugins());
  REQUIRE(r.report.cv.has_value());
  CHECK(r.report.cv->folds == 5);
  CHECK(r.report.cv->committee == 2);
  std::size_t rows = 0;
  for (const auto& f : r.report.cv->per_fold) {
    rows += f.test_rows;
    CHECK(f.train_rows + f.test_rows == 250);
    CHECK(*f.test.error_rate < 0.3);
  }
  CHECK(rows == 250);
}

TEST_CASE("metrics predicted in row chunks equal those of one prediction on all rows, bit for bit") {
  const auto r = radial::train(two_class({"output.plugin=\"scg\"", "data.standardize=true"}), plugins());
  const radial::Model& m = r.model;
  REQUIRE(m.standardize);
  const std::shared_ptr<radial::Basis> basis = basis_of(m);
  // 150000 rows: three chunks of 65536 rows, the last one short.
  const std::size_t n = 150000;
  const radial::Dataset data = two_gaussians(n, 5, 0.5);
  const radial::Metrics whole =
      radial::compute_metrics(radial::Network(m, basis).predict(data.inputs), m.link, data);
  REQUIRE(whole.cross_entropy.has_value());
  for (const int threads : {1, 2}) {
    const radial::Metrics chunked = radial::evaluate_metrics(m, basis, data, threads);
    CHECK(*chunked.misclassified == *whole.misclassified);
    CHECK(*chunked.cross_entropy == *whole.cross_entropy);
    CHECK(chunked.mse == whole.mse);
  }
  // Inputs already standardised (the trainer's rows): the standardiser is not applied twice.
  radial::Dataset standardised = data;
  m.standardiser.apply(standardised.inputs);
  const radial::Metrics pre = radial::evaluate_metrics(m, basis, standardised, 2, true);
  CHECK(*pre.cross_entropy == *whole.cross_entropy);
  CHECK(pre.mse == whole.mse);
}

TEST_CASE("the training metrics from the least-squares layer's own outputs equal a prediction "
          "of every row") {
  // The layer's pass for the sum of squares keeps Phi W (OutputWeights::training_outputs):
  // the direct and the cg solve, standardised inputs, 1-of-2 targets.
  const radial::Dataset data = two_gaussians(3000, 9, 0.6);
  for (const std::string solver : {"refined-normal-equations", "cg"}) {
    INFO(solver);
    const std::string text =
        "seed = 4\n[data]\ntrain = \"data/synth3_train.csv\"\nstandardize = true\n"
        "[basis]\nplugin = \"gaussian\"\nwidth_scale = 2.0\n[centres]\nplugin = \"kmeans\"\n"
        "count = 40\n[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.01\n"
        "[output]\nplugin = \"least-squares\"\nsolver = \"" + solver + "\"\n";
    const auto r = train_on(text, data);
    const radial::Metrics every = radial::evaluate_metrics(r.model, basis_of(r.model), data, 2);
    const radial::Metrics& train = r.report.train;
    CHECK(train.rows == every.rows);
    CHECK(train.sample_of == 0);
    CHECK(*train.misclassified == *every.misclassified);
    CHECK(train.mse == Approx(every.mse).epsilon(1e-12));
  }
}

TEST_CASE("past 2^28 design entries the training metrics come from a seeded row sample",
          "[slow]") {
  // 150,000 rows and 1,800 centres: N (M + 1) = 2.7 x 10^8, just past the rule. Phi in
  // doubles (2.2 GB) is past the cg path's cache, so the output keeps no training outputs (in
  // floats it would be cached, and the metrics read every row's output).
  const std::size_t n = 150000;
  const radial::Dataset data = two_gaussians(n, 6, 0.7);
  const std::string text =
      "seed = 3\n[data]\ntrain = \"data/synth3_train.csv\"\n[basis]\nplugin = \"gaussian\"\n"
      "width_scale = 1.0\n[centres]\nplugin = \"subset\"\ncount = 1800\n"
      "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.01\n"
      "[output]\nplugin = \"least-squares\"\nsolver = \"cg\"\nmax_iterations = 3\n"
      "precision = \"double\"\n";
  const auto r = train_on(text, data);
  const radial::Metrics& train = r.report.train;
  CHECK(train.sample_of == n);
  // Each row kept with probability 100,000 / 150,000: within 5 standard deviations (183).
  CHECK(train.rows > 99000);
  CHECK(train.rows < 101000);
  // The sample's error rate against every row's (the difference's standard error is
  // sqrt(e (1 - e) / 10^5 x 1/3), under 8e-4).
  const radial::Metrics every = radial::evaluate_metrics(r.model, basis_of(r.model), data, 2);
  CHECK(every.rows == n);
  CHECK(every.sample_of == 0);
  CHECK(std::abs(*train.error_rate - *every.error_rate) < 0.004);
  CHECK(radial::report_json(r.report).find("\"sample_of\"") != std::string::npos);
}
