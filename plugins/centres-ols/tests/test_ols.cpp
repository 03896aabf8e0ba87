// ols centre learner, loaded as the host loads it: the chosen centres and error reduction
// ratios, the residual, GCV and leave-one-out figures against the NumPy reference of Chen,
// Cowan & Grant 1991 / Chen, Chng & Alkadhimi 1996 / Orr 1995
// (tests/reference/ols_reference.py, ols/ols_reference.json), with lambda fixed or
// re-estimated by Orr's GCV formula after each step; the network the trainer makes
// from it has the columns chosen (its training error is the reference's last residual); the
// width choice reaches the learner; the candidate subset; the conformance kit.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include <radial/network/candidate_basis.hpp>
#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/pipeline/pipeline.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>
#include <radial/training/trainer.hpp>

namespace {

using radial::ParamValue;

const radial::Registry& registry() {
  return radial::testing::plugin_registry(
      {"centres-ols", "basis-gaussian", "basis-thin-plate", "output-least-squares",
       "weight-penalty-weight-decay", "centres-kmeans"});
}

const nlohmann::json& reference() {
  static const nlohmann::json data = [] {
    std::ifstream in(radial::testing::source_dir() / "tests" / "reference" / "ols" /
                     "ols_reference.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
  }();
  return data;
}

std::filesystem::path data_file(const std::string& name) {
  return radial::testing::source_dir() / "docs" / "examples" / "data" / name;
}

std::shared_ptr<radial::Basis> gaussian(double width) {
  const auto& info = registry().require(radial::Slot::Basis, "gaussian");
  return registry().make_basis("gaussian",
                               radial::validate_params(info.params, {{"width", width}}, "test"));
}

std::shared_ptr<radial::CentreLearner> ols(const std::map<std::string, ParamValue>& given) {
  return radial::testing::make_centre_learner(registry(), "ols", given);
}

void check_close(const std::vector<double>& ours, const nlohmann::json& theirs, double rel,
                 const std::string& what) {
  INFO(what);
  REQUIRE(ours.size() == theirs.size());
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const double t = theirs[i].get<double>();
    CHECK(std::abs(ours[i] - t) <= rel * std::max(std::abs(t), 1e-6));
  }
}

}  // namespace

TEST_CASE("ols chooses the centres and error reduction ratios of the 1991 algorithm",
          "[ols][reference]") {
  for (const auto& c : reference()["cases"]) {
    const std::string name = c["name"];
    INFO(name);
    const radial::Dataset data = radial::read_csv(data_file(c["data"]));
    std::map<std::string, ParamValue> params{{"count", std::int64_t(c["count"].get<int>())},
                                             {"candidates", std::int64_t(0)}};
    if (c.contains("lam")) {
      if (c["lam"].is_string())
        params["lambda"] = c["lam"].get<std::string>();  // "reestimate"
      else
        params["lambda"] = c["lam"].get<double>();
    }
    if (c.contains("stop")) params["stop"] = c["stop"].get<std::string>();
    if (c.contains("goal")) params["goal"] = c["goal"].get<double>();
    const double width = c["width"];
    radial::CandidateBasis basis([width] { return gaussian(width); });
    radial::FitContext ctx(1);
    const radial::Centres centres = ols(params)->fit_on_basis(data, nullptr, basis, ctx);
    const auto& series = ctx.report.series;
    const std::vector<double>& rows = series.at("selected_rows");
    REQUIRE(rows.size() == c["selected"].size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::size_t row = c["selected"][i];
      CHECK(rows[i] == double(row));
      for (std::size_t f = 0; f < data.features(); ++f)
        CHECK(centres.means(i, f) == data.inputs(row, f));  // the centre is the training row
      // ... with the width the basis gave the candidates.
      CHECK(centres.variances(i) == Approx(width * width).epsilon(1e-14));
    }
    check_close(series.at("error_reduction"), c["error_reduction"], 1e-9, "error reduction");
    check_close(series.at("mse"), c["mse"], 1e-9, "mse");
    check_close(series.at("gcv"), c["gcv"], 1e-9, "gcv");
    check_close(series.at("loo"), c["loo"], 1e-9, "loo");
    if (c.contains("lambda_path"))  // Orr's re-estimated lambda after each step
      check_close(series.at("lambda"), c["lambda_path"], 1e-8, "lambda");
    CHECK(ctx.report.figures.at("bias_error_reduction") ==
          Approx(c["bias_error_reduction"].get<double>()).epsilon(1e-12));
  }
}

TEST_CASE("the network trained from ols has the columns it chose", "[ols][trainer]") {
  // The least-squares fit on [1, chosen columns] leaves the reference's last residual: the
  // trainer's basis keeps the widths the candidates had (no width_rule from the user).
  const auto& c = reference()["cases"][0];
  REQUIRE(c["name"] == "sine count");
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\nstandardize = false\n"
                           "[basis]\nplugin = \"gaussian\"\nwidth = 0.1\n"
                           "[centres]\nplugin = \"ols\"\ncount = 10\n"
                           "[output]\nplugin = \"least-squares\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "ols.toml", registry());
  const radial::TrainingResult r = radial::train(p, registry());
  CHECK(r.model.centres.count() == 10);
  CHECK(r.report.train.mse == Approx(c["mse"].back().get<double>()).epsilon(1e-8));
}

TEST_CASE("with width_scale = choose the learner sees each width it is scored with",
          "[ols][selection]") {
  // The nearest rule on the candidates (the 100 training rows) at each scale tried: the
  // centres the model keeps carry the chosen scale times the candidates' nearest-row variance.
  const radial::Dataset data = radial::read_csv(data_file("sine.train.csv"));
  double nearest = 0;
  for (std::size_t i = 0; i < data.rows(); ++i) {
    double best = INFINITY;
    for (std::size_t j = 0; j < data.rows(); ++j)
      if (i != j) best = std::min(best, std::pow(data.inputs(i, 0) - data.inputs(j, 0), 2));
    nearest += best;
  }
  nearest /= double(data.rows());
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\nstandardize = false\n"
                           "[basis]\nplugin = \"gaussian\"\nwidth_rule = \"nearest\"\n"
                           "[centres]\nplugin = \"ols\"\ncount = 8\n"
                           "[output]\nplugin = \"least-squares\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "ols-choose.toml", registry());
  const radial::TrainingResult r = radial::train(p, registry());
  REQUIRE(r.report.selection);
  double scale = 0;
  for (const auto& [key, value] : r.report.selection->chosen)
    if (key == "basis.width_scale") scale = std::get<double>(value);
  REQUIRE(scale > 0);
  // Every width of the grid was scored (regression too: no climb), each with its own centres.
  CHECK(r.report.selection->curves.size() >= 8);
  for (double v : r.model.centres.variances) CHECK(v == Approx(scale * nearest).epsilon(1e-12));
  CHECK(std::get<std::string>(r.model.basis_params.at("width_rule")) == "shapes");
}

TEST_CASE("ols draws a seeded subset of candidate rows and keeps to it", "[ols]") {
  const radial::Dataset data = radial::read_csv(data_file("iris.csv"));
  std::set<std::vector<double>> rows;
  radial::CandidateBasis basis([] { return gaussian(1.0); });
  radial::FitContext ctx(7);
  const radial::Centres centres =
      ols({{"count", std::int64_t(5)}, {"candidates", std::int64_t(30)}})
          ->fit_on_basis(data, nullptr, basis, ctx);
  CHECK(basis.candidates().count() == 30);
  CHECK(ctx.report.figures.at("candidates") == 30);
  REQUIRE(centres.count() == 5);
  for (std::size_t k = 0; k < 30; ++k)
    rows.insert({basis.candidates().means(k, 0), basis.candidates().means(k, 1),
                 basis.candidates().means(k, 2), basis.candidates().means(k, 3)});
  for (std::size_t j = 0; j < 5; ++j)
    CHECK(rows.count({centres.means(j, 0), centres.means(j, 1), centres.means(j, 2),
                      centres.means(j, 3)}) == 1);
}

TEST_CASE("ols refuses what it cannot do, naming the setting", "[ols]") {
  const radial::Dataset data = radial::read_csv(data_file("iris.csv"));
  radial::CandidateBasis basis([] { return gaussian(1.0); });
  radial::FitContext ctx(1);
  CHECK_THROWS_WITH(ols({{"count", std::int64_t(20)}, {"candidates", std::int64_t(10)}})
                        ->fit_on_basis(data, nullptr, basis, ctx),
                    Catch::Contains("centres.count <= 10"));
  // Without its basis (not through the trainer): an internal error that says why.
  CHECK_THROWS_WITH(ols({})->fit(data, nullptr, ctx), Catch::Contains("fit_on_basis"));
}

TEST_CASE("ols on a Euclidean basis (thin-plate) chooses columns too", "[ols]") {
  const std::string text = "seed = 1\n[data]\ntrain = \"" + data_file("sine.train.csv").string() +
                           "\"\n[basis]\nplugin = \"thin-plate\"\n"
                           "[centres]\nplugin = \"ols\"\ncount = 12\n"
                           "[output]\nplugin = \"least-squares\"\n";
  const radial::Pipeline p =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "ols-tps.toml", registry());
  const radial::TrainingResult r = radial::train(p, registry());
  CHECK(r.model.centres.count() == 12);
  CHECK(r.model.centres.shape == radial::Shape::None);
  CHECK(r.report.train.mse < 0.02);  // noise variance of sine.train is 0.01
}

TEST_CASE("ols conforms", "[ols][conformance]") {
  radial::conformance::check_plugin(registry(), "ols");
}

TEST_CASE("ols keeps one centre when GCV or leave-one-out never fall", "[ols]") {
  // Constant targets: the bias column fits them exactly, so no centre lowers either criterion;
  // the network still gets its one centre (the first candidate: every ratio is 0).
  radial::Dataset data = radial::read_csv(data_file("sine.train.csv"));
  data.values.fill(0.5);
  for (const char* stop : {"gcv", "loo"}) {
    radial::CandidateBasis basis([] { return gaussian(0.1); });
    radial::FitContext ctx(1);
    const radial::Centres c =
        ols({{"stop", std::string(stop)}, {"count", std::int64_t(20)}})
            ->fit_on_basis(data, nullptr, basis, ctx);
    CHECK(c.count() == 1);
    CHECK(ctx.report.series.at("selected_rows") == std::vector<double>{0.0});
  }
}
