// centres.count = "choose" with an auto count above 800 centres: the validation curve on a
// hold-out of the training rows, tried from the smallest count until one does not earn its
// cost, and the smallest count within one standard error of the best (selection.cpp,
// validated_count).
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

namespace fs = std::filesystem;

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

// 8,000 rows of two inputs on [0, 1]^2: the class of a circle (smooth) or of a cells x cells
// checkerboard, with 5% of the labels flipped. The auto count is 1,069.
fs::path two_class_csv(const std::string& name, int cells) {
  const fs::path dir = fs::temp_directory_path() / "radial-test-count-curve";
  fs::create_directories(dir);
  const fs::path file = dir / (name + ".csv");
  std::ofstream out(file);
  out << "x1,x2,class\n";
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 8000; ++i) {
    const double a = u(rng), b = u(rng);
    int label = cells == 0 ? int((a - 0.5) * (a - 0.5) + (b - 0.5) * (b - 0.5) < 0.1)
                           : (int(a * cells) + int(b * cells)) % 2;
    if (u(rng) < 0.05) label = 1 - label;
    out << a << ',' << b << ',' << (label ? "yes" : "no") << '\n';
  }
  return file;
}

radial::TrainingResult fit(const fs::path& csv, const std::string& penalty = "") {
  const std::string text = "seed = 2\n[data]\ntrain = \"" + csv.string() +
                           "\"\n[basis]\nplugin = \"gaussian\"\n[centres]\nplugin = "
                           "\"kmeans\"\ncount = \"choose\"\n[output]\nplugin = "
                           "\"least-squares\"\n" + penalty;
  return radial::train(
      radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/c.toml",
                             plugins(), {}),
      plugins());
}

// What every curve must satisfy, read from the report: the hold-out and the rows, the
// standard errors' closed form, the stopping rule and the one-standard-error choice.
std::size_t check_curve(const radial::TrainingResult& result) {
  REQUIRE(result.report.selection);
  const radial::SelectionReport& s = *result.report.selection;
  const std::size_t n = 8000, auto_count = radial::auto_centre_count(n, 2);
  REQUIRE(auto_count == 1069);
  const auto& counts = s.count_curve_counts;
  const auto& errors = s.count_curve_errors;
  REQUIRE(!counts.empty());
  REQUIRE(errors.size() == counts.size());
  REQUIRE(s.count_curve_standard_errors.size() == counts.size());
  REQUIRE(s.count_curve_rows.size() == counts.size());
  // A fifth of the rows held out (a seeded sample: its size is binomial, sd 36).
  const double held = double(s.count_curve_held_out);
  CHECK(std::fabs(held - 1600.0) < 200.0);
  // Counts from auto / 4 upwards; each fitted on 32 rows a centre of the rest, at most all.
  CHECK(counts.front() == auto_count / 4);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    INFO("count " << counts[i]);
    if (i > 0) CHECK(counts[i] > counts[i - 1]);
    const double rest = double(n) - held, wanted = 32.0 * double(counts[i]);
    if (wanted >= rest) CHECK(double(s.count_curve_rows[i]) == rest);
    else CHECK(std::fabs(double(s.count_curve_rows[i]) - wanted) < 6 * std::sqrt(wanted));
    CHECK(s.count_curve_standard_errors[i] ==
          Approx(std::sqrt(errors[i] * (1 - errors[i]) / held)).epsilon(1e-12));
  }
  // Every count before the last lowered the best error by more than its standard error; the
  // last did not (or was the grid's last).
  std::size_t best = 0;
  for (std::size_t i = 1; i < counts.size(); ++i) {
    const double bar = errors[best] - s.count_curve_standard_errors[best];
    if (i + 1 < counts.size()) CHECK(errors[i] < bar);
    else if (counts[i] < 4 * auto_count) CHECK(errors[i] >= bar);
    if (errors[i] < errors[best]) best = i;
  }
  // The choice: the smallest count within one standard error of the best.
  std::size_t chosen = best;
  for (std::size_t i = 0; i < best; ++i)
    if (errors[i] <= errors[best] + s.count_curve_standard_errors[best]) {
      chosen = i;
      break;
    }
  CHECK(result.model.centres.count() == counts[chosen]);
  return counts[chosen];
}

}  // namespace

TEST_CASE("count = \"choose\": a smooth boundary keeps the smallest count and stops early") {
  const auto result = fit(two_class_csv("circle", 0));
  const std::size_t chosen = check_curve(result);
  CHECK(chosen == 267);
  // 534 centres do not earn their cost on a circle: the curve stops there.
  CHECK(result.report.selection->count_curve_counts.size() == 2);
}

TEST_CASE("count = \"choose\": a fine checkerboard earns more centres") {
  const auto result = fit(two_class_csv("checkerboard", 12));
  const std::size_t chosen = check_curve(result);
  CHECK(chosen > 267);
  const auto& errors = result.report.selection->count_curve_errors;
  CHECK(errors[1] < errors[0] - result.report.selection->count_curve_standard_errors[0]);
}

TEST_CASE("count = \"choose\": the curve's networks carry the pipeline's own penalty") {
  // A penalty given with a number (nothing chosen about it) is the one the curve fits with:
  // the same alpha under rkhs and under weight decay gives two different curves.
  const fs::path csv = two_class_csv("checkerboard", 12);
  const auto rkhs = fit(csv, "[weight-penalty]\nplugin = \"rkhs\"\nalpha = 0.5\n");
  const auto decay = fit(csv, "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = 0.5\n");
  REQUIRE(rkhs.report.selection);
  REQUIRE(decay.report.selection);
  CHECK(rkhs.report.selection->count_curve_errors !=
        decay.report.selection->count_curve_errors);
  CHECK(rkhs.model.pipeline_text.find("rkhs") != std::string::npos);
}
