// grnn output layer, trained through the pipeline as the host does: predictions against the
// direct formula of Specht 1991 eq 3 in NumPy (tests/reference/specht_reference.py), the
// nearest-neighbour limit as the spread shrinks (scikit-learn's 1-NN), the clustered form
// (eqs 5-6) with fewer centres, and the refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/model/network.hpp>
#include <radial/pipeline/pipeline.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>
#include <radial/core/text.hpp>
#include <radial/training/trainer.hpp>

namespace {

const radial::Registry& registry() {
  return radial::testing::plugin_registry(
      {"output-grnn", "basis-gaussian", "basis-thin-plate", "centres-subset", "centres-kmeans",
       "refine-lbfgs"});
}

const nlohmann::json& reference() {
  static const nlohmann::json data = [] {
    std::ifstream in(radial::testing::source_dir() / "tests" / "reference" / "specht" /
                     "specht_reference.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
  }();
  return data;
}

std::filesystem::path data_file(const std::string& name) {
  return radial::testing::source_dir() / "docs" / "examples" / "data" / name;
}

radial::TrainingResult train(const std::string& basis, const std::string& centres) {
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\nstandardize = false\n[basis]\n" + basis + "\n[centres]\n" +
                           centres + "\n[output]\nplugin = \"grnn\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "grnn.toml", registry());
  return radial::train(p, registry());
}

radial::Matrix predict(const radial::TrainingResult& r, const radial::Matrix& x) {
  const auto& info = registry().require(radial::Slot::Basis, r.model.basis_id);
  auto basis = registry().make_basis(
      r.model.basis_id, radial::validate_params(info.params, r.model.basis_params, "test"));
  basis->load_state(r.model.basis_state);
  return radial::Network(r.model, basis).predict(x);
}

const std::string all_rows = "plugin = \"subset\"\nall = true";

}  // namespace

TEST_CASE("grnn is Specht's estimate with one Gaussian per training row", "[grnn][reference]") {
  const radial::Dataset test = radial::read_csv(data_file("sine.test.csv"));
  for (const auto& c : reference()["grnn"]) {
    const double sigma = c["sigma"];
    INFO("sigma " << sigma);
    const auto r = train("plugin = \"gaussian\"\nwidth = " + radial::text::number(sigma, 17),
                         all_rows);
    CHECK(r.model.link.name() == "normalised");
    const radial::Matrix y = predict(r, test.inputs);
    REQUIRE(y.shape(0) == c["predictions"].size());
    REQUIRE(y.shape(1) == 1);
    for (std::size_t i = 0; i < y.shape(0); ++i)
      CHECK(y(i, 0) == Approx(c["predictions"][i].get<double>()).epsilon(1e-11).margin(1e-13));
  }
}

TEST_CASE("grnn tends to the nearest neighbour as the spread shrinks", "[grnn][limit]") {
  // The lecture notes' (paper 001) nearest-neighbour limit: the largest distance to the 1-NN
  // prediction falls with the spread, and every test row whose second-nearest training row is
  // 40 kernel exponents behind its nearest (D_2^2 - D_1^2 > 80 sigma^2, the reference's margin)
  // has the 1-NN value to rounding -- at sigma = 1e-4, where every plain exp(-D^2 / 2 sigma^2)
  // underflows, all but the rows almost midway between two training rows.
  const radial::Dataset test = radial::read_csv(data_file("sine.test.csv"));
  const auto& nearest = reference()["grnn_nearest"];
  const auto& margin = reference()["grnn_nearest_margin"];
  double previous = INFINITY;
  std::size_t clear = 0;
  for (const double sigma : {0.1, 0.03, 0.01, 0.003, 0.001, 1e-4}) {
    const auto r =
        train("plugin = \"gaussian\"\nwidth = " + radial::text::number(sigma, 17), all_rows);
    const radial::Matrix y = predict(r, test.inputs);
    double gap = 0;
    clear = 0;
    for (std::size_t i = 0; i < y.shape(0); ++i) {
      const double g = std::abs(y(i, 0) - nearest[i].get<double>());
      gap = std::max(gap, g);
      if (margin[i].get<double>() > 80 * sigma * sigma) {
        ++clear;
        CHECK(g < 1e-12);
      }
    }
    INFO("sigma " << sigma << ": largest gap to 1-NN " << gap);
    CHECK(gap < previous);
    previous = gap;
  }
  CHECK(clear >= 380);  // of 400
}

TEST_CASE("grnn with fewer centres sums the targets of each centre's rows", "[grnn]") {
  // Specht 1991 eqs 5-6: y = sum A_j phi_j / sum B_j phi_j; B sums to N, A to the targets' sum.
  const auto r = train("plugin = \"gaussian\"\nwidth = 0.1",
                       "plugin = \"kmeans\"\ncount = 7");
  const radial::Matrix& w = r.model.weights;
  REQUIRE(w.shape(0) == 8);
  REQUIRE(w.shape(1) == 2);
  const radial::Dataset train_set = radial::read_csv(data_file("sine.train.csv"));
  double a = 0, b = 0, y = 0;
  for (std::size_t j = 0; j < 7; ++j) {
    a += w(j, 0);
    b += w(j, 1);
    CHECK(w(j, 1) == std::round(w(j, 1)));
  }
  for (double v : train_set.values) y += v;
  CHECK(b == 100);
  CHECK(a == Approx(y).epsilon(1e-12));
  CHECK(w(7, 0) == 0);
  CHECK(w(7, 1) == 0);
}

TEST_CASE("grnn refuses a basis without a log map and says the spread was not chosen",
          "[grnn]") {
  CHECK_THROWS_WITH(train("plugin = \"thin-plate\"", all_rows),
                    Catch::Contains("use basis gaussian"));
  const auto r = train("plugin = \"gaussian\"", all_rows);  // width_scale left to "choose"
  bool warned = false;
  for (const auto& w : r.report.warnings) warned = warned || w.guard == "unchosen-spread";
  CHECK(warned);
}

TEST_CASE("[refine] after grnn is refused, naming the link", "[grnn]") {
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\n[basis]\nplugin = \"gaussian\"\nwidth = 0.1\n[centres]\n" +
                           all_rows + "\n[output]\nplugin = \"grnn\"\n[refine]\nplugin = \"lbfgs\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "grnn-refine.toml", registry());
  CHECK_THROWS_WITH(radial::train(p, registry()), Catch::Contains("link 'normalised'"));
}

TEST_CASE("grnn conforms", "[grnn][conformance]") {
  radial::conformance::check_plugin(registry(), "grnn");
}
