#pragma once
// The checks every refiner plugin passes, through a pipeline (the refiner's own tests call
// check_refiner with its id): from the two-stage fit of linear, logistic and softmax outputs on
// Gaussian and thin-plate bases, the learning curve starts at the output layer's final error,
// never rises, ends below its start, and the refined model's training error falls with it;
// widths a Euclidean basis does not have are refused.

#include <algorithm>
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace radial::testing {

inline std::string refine_test_pipeline(const std::string& data, const std::string& basis,
                                        const std::string& output, const std::string& refine) {
  return "seed = 3\n[data]\ntrain = \"" + data + "\"\n" +
         (data == "data/sine.train.csv" ? "target = \"y\"\ntask = \"regression\"\n" : "") +
         "[basis]\nplugin = \"" + basis + "\"\n[centres]\nplugin = \"kmeans\"\ncount = 12\n"
         "[output]\nplugin = \"" + output + "\"\n[weight-penalty]\nplugin = \"weight-decay\"\n"
         "alpha = 0.01\n" + refine;
}

inline void check_refiner(const std::string& id) {
  const Registry& registry = shipped_registry();
  const auto parse = [&](const std::string& text) {
    return parse_pipeline(text, source_dir() / "docs/examples/x.toml", registry, {});
  };
  struct Case {
    std::string data, basis, output;
  };
  for (const Case& c : {Case{"data/sine.train.csv", "gaussian", "least-squares"},
                        Case{"data/synth3_train.csv", "gaussian", "irls"},
                        Case{"data/iris.csv", "gaussian", "irls"},
                        Case{"data/synth3_train.csv", "thin-plate", "bfgs"}}) {
    INFO(id << ": " << c.data << " " << c.basis << " " << c.output);
    const std::string two_stage = refine_test_pipeline(c.data, c.basis, c.output, "");
    const auto before = train(parse(two_stage), registry);
    const auto after = train(
        parse(two_stage + "[refine]\nplugin = \"" + id + "\"\niterations = 100\n"), registry);
    REQUIRE(after.report.refine);
    const FitReport& r = after.report.refine->fit;
    REQUIRE(r.curve.size() == r.iterations + 1);
    CHECK(r.curve.front().error == Approx(before.report.output.fit.final_error).epsilon(1e-9));
    for (std::size_t i = 1; i < r.curve.size(); ++i)
      CHECK(r.curve[i].error <= r.curve[i - 1].error);
    CHECK(r.final_error < r.curve.front().error);
    if (c.output == "least-squares")
      CHECK(after.report.train.mse < before.report.train.mse);
    else
      CHECK(*after.report.train.cross_entropy < *before.report.train.cross_entropy);
  }
  // Early stopping: every 1/f-th row held out; the kept iterate is the one of least held-out
  // error, found `patience` iterations before the stop.
  for (const char* data : {"data/synth3_train.csv", "data/sine.train.csv"}) {
    INFO(id << " early stopping on " << data);
    const auto run = train(
        parse(refine_test_pipeline(data, "gaussian",
                                   std::string(data) == "data/sine.train.csv" ? "least-squares"
                                                                              : "irls",
                                   "[refine]\nplugin = \"" + id +
                                       "\"\niterations = 300\nvalidation = 0.25\npatience = 5\n")),
        registry);
    REQUIRE(run.report.refine);
    const FitReport& r = run.report.refine->fit;
    const auto& held = r.series.at("validation_error");
    REQUIRE(held.size() == r.iterations + 1);
    // The start is not a candidate (the held-out rows fitted it): the best after it.
    const std::size_t best =
        std::size_t(std::min_element(held.begin() + 1, held.end()) - held.begin());
    CHECK(r.figures.at("validation_error") == held[best]);
    CHECK(r.figures.at("best_iteration") == double(best));
    CHECK(r.figures.at("validation_rows") == std::floor(double(run.report.train_rows) * 0.25));
    if (r.figures.at("stopped_early") == 1.0) CHECK(r.iterations == best + 5);
    CHECK(r.final_error <= r.curve.front().error);
  }
  const std::string euclidean =
      refine_test_pipeline("data/synth3_train.csv", "thin-plate", "irls",
                           "[refine]\nplugin = \"" + id + "\"\nwidths = \"per-centre\"\n");
  CHECK_THROWS_AS(train(parse(euclidean), registry), InputError);
}

}  // namespace radial::testing
