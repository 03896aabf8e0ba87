// The trainer's stage runner (framework/src/training/stage.hpp): every stage gets its own seed
// stream, the run's threads and log, and the plugin's id as its component; an error leaving a
// stage is rethrown of the same type with the plugin's id in front, once.
#include <chrono>
#include <new>
#include <random>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"
#include "stage.hpp"

namespace {

using Catch::Matchers::StartsWith;
using radial::training::StageRunner;
using radial::training::Stream;

}  // namespace

TEST_CASE("a stage runs on its own stream with the run's threads, log and the plugin's id") {
  std::string logged;
  const StageRunner stages(42, 3, [&](const std::string& line) { logged += line; });
  std::uint64_t first_draw = 0;
  const radial::FitReport report =
      stages.run(Stream::output_stream, radial::Slot::Output, "irls", [&](radial::FitContext& ctx) {
        first_draw = ctx.rng();
        CHECK(ctx.threads == 3);
        CHECK(ctx.component == "irls");
        ctx.progress("step");
        ctx.warn("guard", "what", "setting");
      });
  // derive_seed(seed, stream) is the stream's seed, as before the runner (trainer.hpp).
  CHECK(first_draw == std::mt19937_64(radial::derive_seed(42, Stream::output_stream))());
  CHECK(stages.seed(Stream::centres_stream) == radial::derive_seed(42, 1));
  CHECK(logged == "step");
  REQUIRE(report.warnings.size() == 1);
  CHECK(report.warnings[0].component == "irls");
  CHECK(report.seconds >= 0);
}

TEST_CASE("an error leaving a stage names the plugin once and keeps its type") {
  const StageRunner stages(1, 1, nullptr);
  const auto throwing = [&](auto error) {
    return [&stages, error] {
      stages.run(Stream::centres_stream, radial::Slot::Centres, "kmeans",
                 [&](radial::FitContext&) { throw error; });
    };
  };
  CHECK_THROWS_AS(throwing(radial::ParameterError("count = 0"))(), radial::ParameterError);
  CHECK_THROWS_WITH(throwing(radial::ParameterError("count = 0"))(), "kmeans: count = 0");
  CHECK_THROWS_AS(throwing(radial::NumericalError("no step"))(), radial::NumericalError);
  CHECK_THROWS_AS(throwing(radial::DataError("file:1:2: bad"))(), radial::DataError);
  // A plugin's own exception type may live in its library: it leaves as a radial::Error.
  CHECK_THROWS_AS(throwing(std::runtime_error("boom"))(), radial::Error);
  CHECK_THROWS_WITH(throwing(std::runtime_error("boom"))(), "kmeans: boom");
  CHECK_THROWS_AS(throwing(std::bad_alloc())(), std::bad_alloc);

  // A prefix the plugin wrote itself is replaced, not doubled.
  using radial::training::stage_message;
  CHECK(stage_message(radial::Slot::Centres, "kmeans", "kmeans: a") == "kmeans: a");
  CHECK(stage_message(radial::Slot::Centres, "kmeans", "centres kmeans: a") == "kmeans: a");
  CHECK(stage_message(radial::Slot::Centres, "kmeans", "plugin kmeans: a") == "kmeans: a");
  CHECK(stage_message(radial::Slot::Centres, "kmeans", "kmeansx: a") == "kmeans: kmeansx: a");
  CHECK(stage_message(radial::Slot::Basis, "gaussian", "basis gaussian: a") == "gaussian: a");
}

TEST_CASE("train() reports a plugin's bad-input error with the plugin's id") {
  // synth3_train has 250 rows: k-means cannot place 400 centres on them.
  const radial::Pipeline p = radial::read_pipeline(
      radial::testing::source_dir() / "docs/examples/two-class-kmeans-thin-plate.toml",
      radial::testing::shipped_registry(), {"centres.count=400"});
  CHECK_THROWS_MATCHES(radial::train(p, radial::testing::shipped_registry()), radial::InputError,
                       Catch::Matchers::Predicate<radial::InputError>(
                           [](const radial::InputError& e) {
                             return std::string(e.what()).rfind("kmeans: count = 400 but the "
                                                                "training data have only 250",
                                                                0) == 0;
                           },
                           "starts with \"kmeans: count = 400 but the training data have only "
                           "250\""));
}
