// The trainer end to end through the real plugins.
#include <memory>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/pipeline.hpp"
#include "radial/registry.hpp"
#include "radial/trainer.hpp"

namespace {

const radial::Registry& plugins() {
  static const std::unique_ptr<radial::Registry> registry = [] {
    auto r = std::make_unique<radial::Registry>();
    r->load_folder(radial::testing::plugin_dir());
    return r;
  }();
  return *registry;
}

radial::Pipeline two_class(const std::vector<std::string>& overrides = {}) {
  const auto file = radial::testing::source_dir() / "docs/examples/two-class-kmeans-thin-plate.toml";
  return radial::read_pipeline(file, plugins(), overrides);
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
