// pnn output layer, trained through the pipeline as the host does: posteriors against the
// direct formula of Specht 1990 in NumPy (tests/reference/specht_reference.py) for both priors,
// the nearest-neighbour limit (scikit-learn's 1-NN classes), and the refusals.
#include <catch2/catch.hpp>

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
  return radial::testing::plugin_registry({"output-pnn", "basis-gaussian", "centres-subset"});
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

// Iris without every fifth row (the reference's training rows), and those rows.
struct Split {
  radial::Dataset train, test;
};
const Split& iris() {
  static const Split split = [] {
    const radial::Dataset all = radial::read_csv(data_file("iris.csv"));
    std::vector<std::size_t> in, out;
    for (std::size_t n = 0; n < all.rows(); ++n) (n % 5 == 0 ? out : in).push_back(n);
    return Split{radial::select_rows(all, in), radial::select_rows(all, out)};
  }();
  return split;
}

radial::Matrix posterior(const std::string& output, double sigma) {
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("iris.csv").string() +
                           "\"\nstandardize = false\n[basis]\nplugin = \"gaussian\"\nwidth = " +
                           radial::text::number(sigma, 17) +
                           "\n[centres]\nplugin = \"subset\"\nall = true\n[output]\n" + output +
                           "\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "pnn.toml", registry());
  const auto r = radial::train(p, registry(), iris().train, std::nullopt);
  CHECK(r.model.link.name() == "normalised-posterior");
  const auto& info = registry().require(radial::Slot::Basis, "gaussian");
  auto basis = registry().make_basis(
      "gaussian", radial::validate_params(info.params, r.model.basis_params, "test"));
  basis->load_state(r.model.basis_state);
  return radial::Network(r.model, basis).predict(iris().test.inputs);
}

}  // namespace

TEST_CASE("pnn gives Specht's posteriors from each class's Parzen sum", "[pnn][reference]") {
  for (const auto& c : reference()["pnn"]) {
    const double sigma = c["sigma"];
    const std::string priors = c["priors"];
    INFO("sigma " << sigma << ", priors " << priors);
    const radial::Matrix p =
        posterior("plugin = \"pnn\"\npriors = \"" + priors + "\"", sigma);
    REQUIRE(p.shape(0) == c["posterior"].size());
    REQUIRE(p.shape(1) == 3);
    for (std::size_t i = 0; i < p.shape(0); ++i)
      for (std::size_t k = 0; k < 3; ++k)
        CHECK(p(i, k) ==
              Approx(c["posterior"][i][k].get<double>()).epsilon(1e-11).margin(1e-14));
  }
}

TEST_CASE("pnn tends to the nearest-neighbour classifier as the spread shrinks",
          "[pnn][limit]") {
  const auto& nearest = reference()["pnn_nearest"];
  REQUIRE(reference()["pnn_nearest_ties"].empty());
  const radial::Matrix p = posterior("plugin = \"pnn\"", 1e-4);
  const radial::Labels cls = radial::Network::classify(p);
  for (std::size_t i = 0; i < cls.size(); ++i) {
    CHECK(cls(i) == nearest[i].get<int>());
    CHECK(p(i, std::size_t(cls(i))) > 1 - 1e-12);
  }
}

TEST_CASE("pnn refuses a regression target", "[pnn]") {
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\n[basis]\nplugin = \"gaussian\"\nwidth = 0.1\n"
                           "[centres]\nplugin = \"subset\"\nall = true\n[output]\nplugin = \"pnn\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "pnn-regression.toml",
                             registry());
  CHECK_THROWS_AS(radial::train(p, registry()), radial::InputError);
}

TEST_CASE("pnn conforms", "[pnn][conformance]") {
  radial::conformance::check_plugin(registry(), "pnn");
}
