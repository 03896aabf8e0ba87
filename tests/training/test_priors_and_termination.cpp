// A weight penalty and a kernel prior in one pipeline, each reaching its own stage; and the
// termination reason of a fit reaching the report JSON.
#include <memory>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <radial/testing/paths.hpp>

#include "radial/model/network.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

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
  CHECK_THAT(stage(capped, "output").at("termination_message").get<std::string>(),
             Catch::StartsWith("stopping rule not met after 1 iterations (error "));
  CHECK(capped.report.output.fit.termination == radial::Termination::IterationCap);
  CHECK_FALSE(capped.report.output.fit.converged());

  for (const char* file : {"synth3-thin-plate-irls.toml", "synth3-thin-plate-bfgs.toml",
                           "synth3-thin-plate-scg.toml"}) {
    INFO(file);
    const auto done = radial::train(example(file, {"evaluate.folds=0"}), plugins());
    CHECK(stage(done, "output").at("termination") == "converged");
    CHECK(stage(done, "output").at("converged") == true);
    CHECK_THAT(stage(done, "output").at("termination_message").get<std::string>(),
               Catch::StartsWith("the largest weight change and the error change fell below "
                                 "tolerance 0.0001 at iteration "));
    const auto one = radial::train(
        example(file, {"evaluate.folds=0", "output.iterations=1"}), plugins());
    CHECK(stage(one, "output").at("termination") == "iteration-cap");
  }

  // k-means states which of its two stops it met.
  const auto kmeans = radial::train(
      example("two-class-kmeans-thin-plate.toml", {"centres.iterations=1"}), plugins());
  const auto centres = stage(kmeans, "centres");
  const bool moved = centres.at("termination") == "iteration-cap";
  CHECK(centres.at("converged") == !moved);
  CHECK_THAT(centres.at("termination_message").get<std::string>(),
             Catch::StartsWith(moved ? "the centres still moved more than the tolerance 0.0001 "
                                       "after the cap of 1 iterations"
                                     : "the centres moved at most the tolerance"));
  // Closed-form stages say so.
  CHECK(stage(kmeans, "output").at("termination") == "converged");
  CHECK_THAT(stage(kmeans, "output").at("termination_message").get<std::string>(),
             Catch::StartsWith("solved in closed form ("));
}

TEST_CASE("DEM and PRBF report what stopped them", "[termination]") {
  // DEM whose learning rate starts below 1e-10 stalls at once: no improving step, not the cap.
  const auto stalled = radial::train(
      example("waveform-dem-bayes.toml", {"centres.learning_rate=1e-11", "evaluate.folds=0"}),
      plugins());
  const auto dem = stage(stalled, "centres");
  CHECK(dem.at("termination") == "no-progress");
  CHECK(dem.at("converged") == false);
  CHECK_THAT(dem.at("termination_message").get<std::string>(),
             Catch::StartsWith("the learning rate fell below 1e-10 after 0 steps"));
  // DEM at its cap with tolerance 0.
  const auto capped = radial::train(
      example("waveform-dem-bayes.toml",
              {"centres.iterations=2", "centres.tolerance=0", "evaluate.folds=0"}),
      plugins());
  CHECK(stage(capped, "centres").at("termination") == "iteration-cap");
  CHECK_THAT(stage(capped, "centres").at("termination_message").get<std::string>(),
             Catch::StartsWith("ran to the cap of 2 iterations"));

  // PRBF with tolerance 0 runs to its cap: the cap stopped it, so it did not converge.
  const auto prbf = radial::train(
      example("ionosphere-prbf.toml", {"centres.iterations=3", "evaluate.folds=0"}), plugins());
  CHECK(stage(prbf, "centres").at("termination") == "iteration-cap");
  CHECK(stage(prbf, "centres").at("converged") == false);
  CHECK(stage(prbf, "centres").at("termination_message") ==
        "ran to the cap of 3 iterations (tolerance 0)");
  CHECK(prbf.report.centres.fit.iterations == 3);
  // With a tolerance it can meet, it converges before the cap.
  const auto loose = radial::train(
      example("ionosphere-prbf.toml",
              {"centres.iterations=100", "centres.tolerance=0.1", "evaluate.folds=0"}),
      plugins());
  CHECK(stage(loose, "centres").at("termination") == "converged");
  CHECK(loose.report.centres.fit.iterations < 100);
  CHECK_THAT(stage(loose, "centres").at("termination_message").get<std::string>(),
             Catch::StartsWith("L(theta) changed by at most tolerance * N = "));
}
