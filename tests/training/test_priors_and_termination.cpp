// A weight penalty and a kernel prior in one pipeline, each reaching its own stage; and the
// termination reason of a fit reaching the report JSON.
#include <memory>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <radial/testing/paths.hpp>

#include "radial/network.hpp"
#include "radial/pipeline.hpp"
#include "radial/registry.hpp"
#include "radial/testing/registry.hpp"
#include "radial/trainer.hpp"

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

radial::Pipeline example(const char* name, std::vector<std::string> overrides) {
  const auto file = radial::testing::source_dir() / "docs/examples" / name;
  return radial::read_pipeline(file, plugins(), overrides);
}

// PRBF centres on ionosphere (a few EM steps, no cross-validation), IRLS outputs.
const std::vector<std::string> prbf_irls = {"centres.iterations=5", "evaluate.folds=0",
                                            "output.plugin=irls", "output.iterations=5"};

nlohmann::json stage(const radial::TrainingResult& r, const char* name) {
  return nlohmann::json::parse(radial::report_json(r.report)).at(name);
}

}  // namespace

TEST_CASE("weight decay and the Bhattacharyya prior act together, each on its own stage",
          "[priors]") {
  auto with_decay = prbf_irls;
  with_decay.push_back("weight-penalty.plugin=weight-decay");
  with_decay.push_back("weight-penalty.alpha=0.5");
  const radial::Pipeline both_pipeline =
      example("ionosphere-prbf-bhattacharyya.toml", with_decay);
  REQUIRE(both_pipeline.weight_penalty);
  REQUIRE(both_pipeline.kernel_prior);  // named in [kernel-prior]
  const auto both = radial::train(both_pipeline, plugins());
  const auto prior_only = radial::train(example("ionosphere-prbf-bhattacharyya.toml", prbf_irls),
                                        plugins());
  const auto neither = radial::train(example("ionosphere-prbf.toml", prbf_irls), plugins());

  // The kernel prior moves the centres; the weight penalty does not touch them.
  CHECK(both.model.centres.means == prior_only.model.centres.means);
  CHECK(both.model.centres.means != neither.model.centres.means);
  CHECK(stage(both, "centres").at("series").at("log_prior").at(0).get<double>() < 0);
  // The weight penalty reaches the output layer: its reported penalty is alpha/2 of the sum of
  // the squared non-bias weights, by hand from the model.
  const radial::Matrix& w = both.model.weights;
  double squares = 0;
  for (std::size_t i = 0; i + 1 < w.shape(0); ++i)
    for (std::size_t k = 0; k < w.shape(1); ++k) squares += w(i, k) * w(i, k);
  CHECK(squares > 0);
  CHECK(stage(both, "output").at("figures").at("penalty").get<double>() ==
        Approx(0.25 * squares).epsilon(1e-12));
  CHECK(stage(prior_only, "output").at("figures").at("penalty").get<double>() == 0.0);
  CHECK(both.model.weights != prior_only.model.weights);
  // Both plugins are recorded in the model.
  CHECK(both.model.plugin_versions.count("weight-decay") == 1);
  CHECK(both.model.plugin_versions.count("bhattacharyya") == 1);
}

TEST_CASE("the termination reason of each stage reaches the report", "[termination]") {
  // IRLS with iterations = 1 stops at its cap before any Newton step.
  const auto capped = radial::train(
      example("synth3-thin-plate-irls.toml", {"output.iterations=1", "evaluate.folds=0"}),
      plugins());
  CHECK(stage(capped, "output").at("termination") == "iteration-cap");
  CHECK(stage(capped, "output").at("converged") == false);
  CHECK(capped.report.output.fit.termination == radial::Termination::IterationCap);

  for (const char* file : {"synth3-thin-plate-irls.toml", "synth3-thin-plate-bfgs.toml",
                           "synth3-thin-plate-scg.toml"}) {
    INFO(file);
    const auto done = radial::train(example(file, {"evaluate.folds=0"}), plugins());
    CHECK(stage(done, "output").at("termination") == "converged");
    CHECK(stage(done, "output").at("converged") == true);
    const auto one = radial::train(
        example(file, {"evaluate.folds=0", "output.iterations=1"}), plugins());
    CHECK(stage(one, "output").at("termination") == "iteration-cap");
  }

  // A learner that only clears `converged` (k-means at its cap) states the iteration cap.
  const auto kmeans = radial::train(
      example("two-class-kmeans-thin-plate.toml", {"centres.iterations=1"}), plugins());
  const auto centres = stage(kmeans, "centres");
  CHECK(centres.at("termination") ==
        (centres.at("converged").get<bool>() ? "converged" : "iteration-cap"));
}
