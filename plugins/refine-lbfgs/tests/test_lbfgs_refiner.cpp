// The `lbfgs` refiner through a pipeline: [refine] after the two stages lowers the training
// error of the output layer's own error function from the two-stage start (never raises it),
// for linear, logistic and softmax outputs; the refined model is what the report says; widths a
// basis cannot train are refused with the setting named.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/testing/paths.hpp>

#include "radial/errors.hpp"
#include "radial/pipeline.hpp"
#include "radial/registry.hpp"
#include "radial/testing/registry.hpp"
#include "radial/trainer.hpp"

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

radial::Pipeline parse(const std::string& text) {
  return radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/x.toml",
                                plugins(), {});
}

std::string pipeline(const std::string& data, const std::string& basis, const std::string& output,
                     const std::string& refine) {
  return "seed = 3\n[data]\ntrain = \"" + data + "\"\n" +
         (data == "data/sine.train.csv" ? "target = \"y\"\ntask = \"regression\"\n" : "") +
         "[basis]\nplugin = \"" + basis + "\"\n[centres]\nplugin = \"kmeans\"\ncount = 12\n"
         "[output]\nplugin = \"" + output + "\"\n[weight-penalty]\nplugin = \"weight-decay\"\n"
         "alpha = 0.01\n" + refine;
}

}  // namespace

TEST_CASE("lbfgs refines from the two-stage fit and never ends above it", "[refine][lbfgs]") {
  struct Case {
    std::string data, basis, output;
  };
  for (const Case& c : {Case{"data/sine.train.csv", "gaussian", "least-squares"},
                        Case{"data/synth3_train.csv", "gaussian", "irls"},
                        Case{"data/iris.csv", "gaussian", "irls"},
                        Case{"data/synth3_train.csv", "thin-plate", "bfgs"}}) {
    INFO(c.data << " " << c.basis << " " << c.output);
    const std::string two_stage = pipeline(c.data, c.basis, c.output, "");
    const auto before = radial::train(parse(two_stage), plugins());
    const auto after = radial::train(
        parse(two_stage + "[refine]\nplugin = \"lbfgs\"\niterations = 100\n"), plugins());
    REQUIRE(after.report.refine);
    const radial::FitReport& r = after.report.refine->fit;
    REQUIRE(r.curve.size() == r.iterations + 1);
    // The start is the two-stage network: its error is the output layer's final error.
    CHECK(r.curve.front().error ==
          Approx(before.report.output.fit.final_error).epsilon(1e-9));
    for (std::size_t i = 1; i < r.curve.size(); ++i)
      CHECK(r.curve[i].error <= r.curve[i - 1].error);
    CHECK(r.final_error < r.curve.front().error);
    CHECK(r.iterations > 0);
    // The refined model's training metrics follow from its lower error.
    if (c.output == "least-squares") CHECK(after.report.train.mse < before.report.train.mse);
    else CHECK(*after.report.train.cross_entropy < *before.report.train.cross_entropy);
  }
}

TEST_CASE("lbfgs refuses widths that a Euclidean basis does not have", "[refine][lbfgs]") {
  const std::string text =
      pipeline("data/synth3_train.csv", "thin-plate", "irls",
               "[refine]\nplugin = \"lbfgs\"\nwidths = \"per-centre\"\n");
  CHECK_THROWS_AS(radial::train(parse(text), plugins()), radial::InputError);
}
