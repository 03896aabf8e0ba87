// The selection finds the parameters it chooses by the roles their components declare
// (radial/core/params.hpp, ParamRole), not by name: a ridge penalty with another id and another
// parameter name ("shrinkage", "lambda"; tests/selection/test_penalty_plugins.cpp, a plugin
// built outside the plugin folder) is chosen exactly as weight-decay's alpha is, on both of the
// selection's paths, and a penalty that is no ridge is never swept.
#include <string>
#include <variant>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/training/trainer.hpp"

namespace {

using Catch::Matchers::Contains;

const radial::Registry& plugins() {
  static radial::Registry registry;
  static const bool loaded = (registry.load_folder(radial::testing::plugin_dir()),
                              registry.load_folder(TEST_PENALTY_DIR), true);
  (void)loaded;
  return registry;
}

// `body` with the [weight-penalty] table `penalty`.
radial::TrainingResult fit(const std::string& body, const std::string& penalty) {
  return radial::train(
      radial::parse_pipeline(body + "[weight-penalty]\n" + penalty + "\n",
                             radial::testing::source_dir() / "docs/examples/p.toml", plugins(),
                             {}),
      plugins());
}

// Regression, least squares: width scale and penalty on the closed form's path.
const char* sine = R"(seed = 3
[data]
train = "data/sine.train.csv"
test = "data/sine.test.csv"
target = "y"
task = "regression"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 15
[output]
plugin = "least-squares"
)";

// Two classes, irls: the penalty on the layer's own cross-validated path.
const char* synth = R"(seed = 5
[data]
train = "data/synth3_train.csv"
test = "data/synth3_test.csv"
[basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
count = 8
[output]
plugin = "irls"
link = "logistic"
)";

double value(const radial::SearchValues& values, const std::string& key) {
  for (const auto& [name, v] : values)
    if (name == key) return std::get<double>(v);
  FAIL("no chosen value " << key);
  return 0;
}

void same_choice(const char* body) {
  const radial::TrainingResult decay = fit(body, "plugin = \"weight-decay\"\nalpha = \"choose\"");
  const radial::TrainingResult ridge = fit(body, "plugin = \"shrinkage\"\nlambda = \"choose\"");
  REQUIRE(decay.report.selection);
  REQUIRE(ridge.report.selection);
  const radial::SearchValues& a = decay.report.selection->chosen;
  const radial::SearchValues& b = ridge.report.selection->chosen;
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  CHECK(value(a, "basis.width_scale") == value(b, "basis.width_scale"));
  CHECK(value(a, "weight-penalty.alpha") == value(b, "weight-penalty.lambda"));
  CHECK(decay.report.selection->path_alphas == ridge.report.selection->path_alphas);
  CHECK(decay.report.selection->path_errors == ridge.report.selection->path_errors);
  // The same network: the same bits.
  CHECK(decay.model.weights == ridge.model.weights);
  CHECK(decay.report.test->mse == ridge.report.test->mse);
}

}  // namespace

TEST_CASE("a ridge penalty of another name is chosen as weight-decay is (closed form)") {
  same_choice(sine);
}

TEST_CASE("a ridge penalty of another name is chosen as weight-decay is (the layer's path)") {
  same_choice(synth);
}

TEST_CASE("a penalty that is no ridge is not swept") {
  // Its parameter accepts "choose" (its table says so), but it declares no ridge strength.
  try {
    fit(sine, "plugin = \"pseudo-l1\"\nlambda = \"choose\"");
    FAIL("a non-ridge penalty's lambda = \"choose\" was accepted");
  } catch (const radial::InputError& e) {
    CHECK_THAT(e.what(), Contains("weight-penalty.lambda = \"choose\"") &&
                             Contains("'pseudo-l1' is not a ridge") &&
                             Contains("give lambda a number") && Contains("shrinkage") &&
                             Contains("weight-decay"));
  }
  // With a number it trains: its strength is not weight decay's, so the width is chosen under
  // (nearly) no penalty, and the penalty is the plugin's own in the fit.
  const radial::TrainingResult given = fit(sine, "plugin = \"pseudo-l1\"\nlambda = 0.01");
  REQUIRE(given.report.selection);
  CHECK(given.report.selection->chosen.size() == 1);
}
