// The auto count's pilot (selection.hpp, selection_pilot_centres): classes past 800 auto
// centres first fit 200 centres on the selection's rows; when their leave-one-out error rate
// plus one standard error is at most the worth (0.005), more centres could not save that much
// and the network keeps the pilot's; otherwise the auto count, chosen as before.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <variant>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"
#include "selection.hpp"

namespace {

namespace fs = std::filesystem;

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

// `rows` rows of two inputs. "blobs": two unit Gaussians 6 apart on each axis (the Bayes error
// is Phi(-3 sqrt 2), about 1e-5: no row of 8,000 should be misclassified); "board": a 12 x 12
// checkerboard on [0, 1]^2 with 5% of the labels flipped (no classifier beats 0.05); "sum": the
// blobs' inputs with a numeric target x1 + x2 (regression).
fs::path csv(const std::string& kind, int rows, std::uint64_t seed) {
  const fs::path dir = fs::temp_directory_path() / "radial-test-count-pilot";
  fs::create_directories(dir);
  const fs::path file = dir / (kind + "-" + std::to_string(seed) + ".csv");
  std::ofstream out(file);
  out << "x1,x2," << (kind == "sum" ? "y" : "class") << "\n";
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int i = 0; i < rows; ++i) {
    if (kind == "board") {
      const double a = u(rng), b = u(rng);
      int label = (int(a * 12) + int(b * 12)) % 2;
      if (u(rng) < 0.05) label = 1 - label;
      out << a << ',' << b << ',' << (label ? "yes" : "no") << '\n';
    } else {
      const int label = i % 2;
      const double a = g(rng) + 6.0 * label, b = g(rng) + 6.0 * label;
      if (kind == "sum") out << a << ',' << b << ',' << a + b << '\n';
      else out << a << ',' << b << ',' << (label ? "yes" : "no") << '\n';
    }
  }
  return file;
}

radial::TrainingResult fit(const fs::path& train, const fs::path& test,
                           const std::string& count = "") {
  const std::string text = "seed = 4\n[data]\ntrain = \"" + train.string() + "\"\n" +
                           (test.empty() ? "" : "test = \"" + test.string() + "\"\n") +
                           "[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = \"kmeans\"\n" +
                           count + "[output]\nplugin = \"least-squares\"\n";
  return radial::train(
      radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/p.toml",
                             plugins(), {}),
      plugins());
}

std::int64_t chosen_count(const radial::SelectionReport& s) {
  for (const auto& [key, value] : s.chosen)
    if (key == "centres.count") return std::get<std::int64_t>(value);
  return 0;
}

}  // namespace

TEST_CASE("count pilot: separable classes keep the pilot's 200 centres") {
  const std::size_t n = 8000;
  REQUIRE(radial::auto_centre_count(n, 2) == 1069);  // past selection_centres
  const auto result = fit(csv("blobs", int(n), 1), csv("blobs", 2000, 2));
  REQUIRE(result.report.selection);
  const radial::SelectionReport& s = *result.report.selection;
  CHECK(s.pilot_centres == radial::training::selection_pilot_centres);
  CHECK(s.pilot_rows == s.rows);
  CHECK(s.pilot_error == 0.0);  // the Bayes error: about 0.1 rows of 8,000
  CHECK(s.pilot_standard_error == 0.0);
  CHECK(s.pilot_count == 200);
  CHECK(chosen_count(s) == 200);
  CHECK(result.model.centres.count() == 200);
  // The pilot's width and penalty are the model's: the grid's curves are the pilot's.
  REQUIRE(!s.curves.empty());
  for (const auto& curve : s.curves) CHECK(curve.count == 200);
  CHECK(s.scored_rows == s.rows);
  CHECK(s.criterion == "loo-error");
  // Chosen with all the network's centres: nothing carried.
  CHECK(s.centres == 0);
  CHECK(s.width_transfer == 1.0);
  CHECK(s.alpha_transfer == 1.0);
  CHECK(result.model.pipeline_text.find("centres.count = 200") != std::string::npos);
  // Fresh rows from the same blobs: none (or hardly any) misclassified.
  REQUIRE(result.report.test);
  CHECK(*result.report.test->error_rate <= 0.001);
}

TEST_CASE("count pilot: an error rate past the worth keeps the auto count") {
  const auto result = fit(csv("board", 8000, 3), {});
  REQUIRE(result.report.selection);
  const radial::SelectionReport& s = *result.report.selection;
  CHECK(s.pilot_centres == 200);
  // Labels flipped at 5%: the error rate is far past 8 x the worth, so only the grid's two
  // middle widths were scored (their best is reported).
  CHECK(s.pilot_error > radial::training::selection_pilot_middle *
                            radial::training::selection_pilot_worth);
  CHECK(s.pilot_standard_error ==
        Approx(std::sqrt(s.pilot_error * (1 - s.pilot_error) / double(s.pilot_rows)))
            .epsilon(1e-12));
  CHECK(s.pilot_count == 1069);
  CHECK(chosen_count(s) == 0);
  CHECK(result.model.centres.count() == 1069);
  // The auto count's own selection: a subset of its centres, as without a pilot.
  CHECK(s.centres == radial::training::selection_subset_centres);
  CHECK(s.centres_of == 1069);
}

TEST_CASE("count pilot: not for a given count, nor for regression") {
  const fs::path blobs = csv("blobs", 8000, 1);
  const auto given = fit(blobs, {}, "count = 900\n");
  REQUIRE(given.report.selection);
  CHECK(given.report.selection->pilot_centres == 0);
  CHECK(given.model.centres.count() == 900);
  const auto regression = fit(csv("sum", 8000, 1), {});
  REQUIRE(regression.report.selection);
  CHECK(regression.report.selection->pilot_centres == 0);
  CHECK(regression.model.centres.count() == radial::auto_centre_count(8000, 0));
}
