// What a pipeline that names only its plugins gets: an automatic centre count, widths and a
// penalty chosen in closed form (the model is the pipeline with the chosen values written in),
// R^2 against its formula, and the warning for a dead basis.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <radial/testing/paths.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/model/network.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

radial::Pipeline parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/defaults.toml",
                                plugins(), overrides);
}

// Only the plugins, every number left to the defaults.
const std::string gaussian_kmeans_ls = R"([basis]
plugin = "gaussian"
[centres]
plugin = "kmeans"
[output]
plugin = "least-squares"
)";

const std::string sine = R"(seed = 4
[data]
train = "data/sine.train.csv"
test = "data/sine.test.csv"
target = "y"
task = "regression"
)" + gaussian_kmeans_ls;

double chosen(const radial::SelectionReport& s, const std::string& key) {
  for (const auto& [k, v] : s.chosen)
    if (k == key) return std::get<double>(v);
  FAIL("no chosen " << key);
  return 0;
}

// An independent sweep: the pipeline once per width scale, the scale given and only alpha
// chosen. Returns the lowest leave-one-out score and its scale.
std::pair<double, double> best_of_sweep(const std::string& pipeline,
                                        const std::vector<double>& scales) {
  double best = std::numeric_limits<double>::infinity(), best_scale = 0;
  for (const double scale : scales) {
    const auto swept = radial::train(
        parse(pipeline + "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = \"choose\"\n",
              {"basis.width_scale=" + radial::to_string(radial::ParamValue(scale))}),
        plugins());
    REQUIRE(swept.report.selection);
    if (swept.report.selection->score < best) {
      best = swept.report.selection->score;
      best_scale = scale;
    }
  }
  return {best, best_scale};
}

}  // namespace

TEST_CASE("defaults: auto count, chosen width and penalty, the same as given by hand") {
  const auto result = radial::train(parse(sine), plugins());
  const auto& r = result.report;
  REQUIRE(r.selection);
  CHECK(r.selection->penalty_added);
  CHECK(r.centres.count == radial::auto_centre_count(r.train_rows, 0));  // regression
  const double scale = chosen(*r.selection, "basis.width_scale");
  const double alpha = chosen(*r.selection, "weight-penalty.alpha");
  // The chosen values given by hand: the same model, bit for bit, and nothing selected.
  const auto by_hand = radial::train(
      parse(sine + "[weight-penalty]\nplugin = \"weight-decay\"\n",
            {"basis.width_scale=" + radial::to_string(radial::ParamValue(scale)),
             "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK_FALSE(by_hand.report.selection);
  CHECK(by_hand.model.weights == result.model.weights);
  // The chosen point is the lowest of every curve.
  for (const auto& curve : r.selection->curves)
    for (double v : curve.loo) CHECK(v >= r.selection->score);
}

TEST_CASE("the learned shapes as widths (width_rule = \"shapes\") still get a chosen penalty") {
  // The scale is not the trainer's to choose there, the penalty is: it was silently dropped.
  const auto result =
      radial::train(parse(sine, {"basis.width_rule=shapes", "centres.count=12"}), plugins());
  const auto& r = result.report;
  REQUIRE(r.selection);
  CHECK(r.selection->penalty_added);
  for (const auto& [key, value] : r.selection->chosen) CHECK(key != "basis.width_scale");
  const double alpha = chosen(*r.selection, "weight-penalty.alpha");
  const auto by_hand = radial::train(
      parse(sine + "[weight-penalty]\nplugin = \"weight-decay\"\n",
            {"basis.width_rule=shapes", "centres.count=12",
             "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK_FALSE(by_hand.report.selection);
  CHECK(by_hand.model.weights == result.model.weights);
}

TEST_CASE("R^2 and adjusted R^2 of a regression report follow their formulas") {
  const auto result = radial::train(parse(sine), plugins());
  const auto data = radial::read_training_data(parse(sine));
  const radial::Dataset& test = *data.test;
  const radial::Matrix y = radial::Network(result.model, [&] {
    const auto& info = plugins().require(radial::Slot::Basis, "gaussian");
    auto basis = plugins().make_basis(
        "gaussian", radial::validate_params(info.params, result.model.basis_params, "test"));
    basis->load_state(result.model.basis_state);
    return std::shared_ptr<const radial::Basis>(basis);
  }()).predict(test.inputs);
  double mean = 0, sse = 0, sst = 0;
  const std::size_t n = test.rows();
  for (std::size_t i = 0; i < n; ++i) mean += test.values(i) / double(n);
  for (std::size_t i = 0; i < n; ++i) {
    sse += (y(i, 0) - test.values(i)) * (y(i, 0) - test.values(i));
    sst += (test.values(i) - mean) * (test.values(i) - mean);
  }
  REQUIRE(result.report.test->r2);
  CHECK(*result.report.test->r2 == Approx(1 - sse / sst).epsilon(1e-10));
  const double m = double(result.report.centres.count);
  CHECK(*radial::adjusted_r2(*result.report.test, result.report.centres.count) ==
        Approx(1 - (sse / sst) * (double(n) - 1) / (double(n) - m - 1)).epsilon(1e-10));
}

TEST_CASE("a dead basis is reported, not trained silently") {
  // sigma = 1e-3 on inputs spread over [0, 1]: every activation off its own centre is ~0.
  const auto result = radial::train(
      parse(sine, {"basis.width=0.001", "centres.count=5"}), plugins());
  bool warned = false;
  for (const auto& w : result.report.warnings)
    warned = warned || (w.guard == "saturated-basis" && w.component == "gaussian");
  CHECK(warned);
  // The chosen widths are alive: no such warning.
  for (const auto& w : radial::train(parse(sine), plugins()).report.warnings)
    CHECK(w.guard != "saturated-basis");
}

TEST_CASE("Regression's width climb chooses what the whole width grid chooses") {
  // The climb's choice against an independent sweep: the same pipeline once per width scale
  // of the grid, the scale given and only alpha chosen; the lowest leave-one-out error of the
  // sweep is the climb's score, at the climb's scale.
  const auto climbed = radial::train(parse(sine), plugins());
  REQUIRE(climbed.report.selection);
  const radial::SelectionReport& s = *climbed.report.selection;
  const std::vector<double> grid = {0.25, 0.5, 1, 2, 4, 8, 16, 32};  // docs/pipeline-format.md
  const auto [best, best_scale] = best_of_sweep(sine, grid);
  CHECK(s.score == best);
  CHECK(chosen(s, "basis.width_scale") == best_scale);
  // ... at fewer decompositions than the grid has widths.
  CHECK(s.curves.size() < grid.size());
}

TEST_CASE("The width goes past the grid's end while the leave-one-out error improves") {
  // A linear target: the wider the Gaussians, the closer to linear the network, so the climb
  // leaves the grid (0.25 ... 32) at its top. Its choice against an independent sweep of the
  // scales from 16 up, each given with only alpha chosen.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "radial-test-width-extension";
  std::filesystem::create_directories(dir);
  {
    std::ofstream csv(dir / "linear.csv");
    csv << "x1,x2,y\n";
    std::uint64_t state = 12345;
    const auto uniform = [&] {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      return double(state >> 11) / 9007199254740992.0;
    };
    for (int n = 0; n < 200; ++n) {
      const double x1 = uniform(), x2 = uniform();
      csv << x1 << "," << x2 << "," << 2 * x1 - x2 + 0.01 * (uniform() - 0.5) << "\n";
    }
  }
  const std::string linear = "seed = 1\n[data]\ntrain = \"" + (dir / "linear.csv").string() +
                             "\"\ntarget = \"y\"\ntask = \"regression\"\n" +
                             gaussian_kmeans_ls;
  const auto climbed = radial::train(parse(linear), plugins());
  REQUIRE(climbed.report.selection);
  const radial::SelectionReport& s = *climbed.report.selection;
  const double scale = chosen(s, "basis.width_scale");
  CHECK(scale > 32);
  const auto [best, best_scale] =
      best_of_sweep(linear, {16, 32, 64, 128, 256, 512, 1024, 2048});
  CHECK(s.score == best);
  CHECK(scale == best_scale);
  // The edge warning only when the climb stopped at the extension's end (32 x 2^6).
  const bool at_end = scale == 2048;
  CHECK((std::find(s.edges.begin(), s.edges.end(), "basis.width_scale") != s.edges.end()) ==
        at_end);
  std::filesystem::remove_all(dir);
}

TEST_CASE("Selection gives the same model on 1, 2 and 3 threads (widths evaluated at once)") {
  // Classification evaluates every width; with threads to spare several run at once, each on
  // one thread. The model and every curve are the same bits as one width at a time.
  const std::string wine = "seed = 2\n[data]\ntrain = \"data/wine.csv\"\n" + gaussian_kmeans_ls;
  std::vector<radial::TrainingResult> runs;
  for (const int threads : {1, 2, 3})
    runs.push_back(radial::train(parse("threads = " + std::to_string(threads) + "\n" + wine),
                                 plugins()));
  for (const auto& run : runs) {
    REQUIRE(run.report.selection);
    const auto& curves = run.report.selection->curves;
    const auto& first = runs.front().report.selection->curves;
    // The grid (and past its end when the best is there) on the prescreen's subset, then the
    // two best with all the centres.
    const auto& pre = run.report.selection->prescreen_curves;
    const auto& first_pre = runs.front().report.selection->prescreen_curves;
    CHECK(pre.size() >= 8);
    CHECK(curves.size() == 2);
    REQUIRE(curves.size() == first.size());
    REQUIRE(pre.size() == first_pre.size());
    for (std::size_t i = 0; i < curves.size(); ++i) {
      CHECK(curves[i].width_scale == first[i].width_scale);
      CHECK(curves[i].loo == first[i].loo);
      CHECK(curves[i].loo_error == first[i].loo_error);
    }
    for (std::size_t i = 0; i < pre.size(); ++i) {
      CHECK(pre[i].width_scale == first_pre[i].width_scale);
      CHECK(pre[i].loo == first_pre[i].loo);
      CHECK(pre[i].loo_error == first_pre[i].loo_error);
    }
    CHECK(run.model.weights == runs.front().model.weights);
    CHECK(run.model.centres.means == runs.front().model.centres.means);
  }
}

TEST_CASE("rkhs alpha = \"choose\": chosen under the metric K_MM, the same model as given by hand") {
  const std::string with_rkhs = sine + "[weight-penalty]\nplugin = \"rkhs\"\n";
  const auto result =
      radial::train(parse(with_rkhs + "alpha = \"choose\"\n", {"basis.width_scale=2"}),
                    plugins());
  const auto& r = result.report;
  REQUIRE(r.selection);
  CHECK_FALSE(r.selection->penalty_added);
  const double alpha = chosen(*r.selection, "weight-penalty.alpha");
  const auto by_hand = radial::train(
      parse(with_rkhs, {"basis.width_scale=2",
                        "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK_FALSE(by_hand.report.selection);
  CHECK(by_hand.model.weights == result.model.weights);
  REQUIRE(r.selection->curves.size() == 1);
  for (double v : r.selection->curves[0].loo) CHECK(v >= r.selection->score);
  // The metric is used: weight decay's path on the same design differs.
  const auto ridge = radial::train(
      parse(sine + "[weight-penalty]\nplugin = \"weight-decay\"\nalpha = \"choose\"\n",
            {"basis.width_scale=2"}),
      plugins());
  REQUIRE(ridge.report.selection);
  CHECK(ridge.report.selection->curves[0].loo != r.selection->curves[0].loo);
}

TEST_CASE("with a centre subset the added penalty is the RKHS norm, its alpha carried x m / M") {
  // 900 centres (> selection_centres): width and alpha chosen on 400 of them, the alpha carried
  // to all of them x 400 / 900; the model then holds rkhs with that alpha, the same bits as the
  // pipeline with both given by hand.
  const std::string waveform = "seed = 3\n[data]\ntrain = \"data/waveform.csv\"\n" +
                               gaussian_kmeans_ls;
  const auto result = radial::train(parse(waveform, {"centres.count=900"}), plugins());
  const auto& r = result.report;
  REQUIRE(r.selection);
  CHECK(r.selection->penalty_added);
  CHECK(r.selection->centres == 400);
  CHECK(r.selection->centres_of == 900);
  // The leave-one-out summed over a seeded sample of about 4,000 of the 5,000 rows
  // (selection_scored_rows; binomial, 3 standard deviations: 85).
  CHECK(r.selection->rows == 5000);
  CHECK(r.selection->scored_rows > 3900);
  CHECK(r.selection->scored_rows < 4100);
  // The model names the added penalty's plugin and version beside the pipeline's own.
  CHECK(result.model.plugin_versions.count("rkhs") == 1);
  CHECK(result.model.plugin_versions.count("kmeans") == 1);
  const double scale = chosen(*r.selection, "basis.width_scale");
  const double alpha = chosen(*r.selection, "weight-penalty.alpha");
  // The subset's best alpha (where its curves reach the score), x 400 / 900.
  CHECK(r.selection->alpha_transfer == Approx(400.0 / 900.0).epsilon(1e-15));
  std::size_t at_score = 0;
  for (const auto& c : r.selection->curves)
    for (std::size_t l = 0; l < c.loo.size(); ++l)
      if (c.loo[l] == r.selection->score) {
        ++at_score;
        CHECK(c.count == 400);
        CHECK(alpha == Approx(c.alphas[l] * 400.0 / 900.0).epsilon(1e-12));
      }
  CHECK(at_score == 1);
  const auto by_hand = radial::train(
      parse(waveform + "[weight-penalty]\nplugin = \"rkhs\"\n",
            {"centres.count=900",
             "basis.width_scale=" + radial::to_string(radial::ParamValue(scale)),
             "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK_FALSE(by_hand.report.selection);
  CHECK(by_hand.model.weights == result.model.weights);
  // ... and not weight decay with that alpha.
  const auto decay = radial::train(
      parse(waveform + "[weight-penalty]\nplugin = \"weight-decay\"\n",
            {"centres.count=900",
             "basis.width_scale=" + radial::to_string(radial::ParamValue(scale)),
             "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK(decay.model.weights != result.model.weights);
}

TEST_CASE("classes on all their centres: the RKHS norm, widths prescreened on 30% of them") {
  // wine: 89 centres; every width scale scored on 27 of them, the two best again on all 89,
  // which choose. The model is rkhs with the chosen values, the same bits as given by hand.
  const std::string wine = "seed = 5\n[data]\ntrain = \"data/wine.csv\"\n" + gaussian_kmeans_ls;
  const auto result = radial::train(parse(wine), plugins());
  const auto& r = result.report;
  REQUIRE(r.selection);
  const radial::SelectionReport& s = *r.selection;
  CHECK(s.penalty_added);
  CHECK(s.criterion == "loo-error");
  CHECK(result.model.plugin_versions.count("rkhs") == 1);
  const std::size_t m = r.centres.count;
  CHECK(s.prescreen_centres == std::size_t(std::ceil(0.3 * double(m))));
  REQUIRE(s.prescreen_curves.size() >= 8);
  for (const auto& c : s.prescreen_curves) CHECK(c.count == s.prescreen_centres);
  // The two kept widths are the prescreen's best two by (error rate, squared error) minima.
  std::vector<std::pair<std::pair<double, double>, double>> ranked;
  for (const auto& c : s.prescreen_curves) {
    std::pair<double, double> best{std::numeric_limits<double>::infinity(), 0};
    for (std::size_t l = 0; l < c.loo.size(); ++l)
      best = std::min(best, std::make_pair(c.loo_error[l], c.loo[l]));
    ranked.push_back({best, c.width_scale});
  }
  std::sort(ranked.begin(), ranked.end());
  REQUIRE(s.curves.size() == 2);
  const double low = std::min(ranked[0].second, ranked[1].second);
  const double high = std::max(ranked[0].second, ranked[1].second);
  CHECK(s.curves[0].width_scale == low);
  CHECK(s.curves[1].width_scale == high);
  for (const auto& c : s.curves) CHECK(c.count == m);
  // Each kept curve is the full problem's: alpha alone chosen at that width gives it again.
  for (const auto& c : s.curves) {
    const auto at_width = radial::train(
        parse(wine + "[weight-penalty]\nplugin = \"rkhs\"\nalpha = \"choose\"\n",
              {"basis.width_scale=" + radial::to_string(radial::ParamValue(c.width_scale))}),
        plugins());
    REQUIRE(at_width.report.selection);
    REQUIRE(at_width.report.selection->curves.size() == 1);
    CHECK(at_width.report.selection->curves[0].loo == c.loo);
    CHECK(at_width.report.selection->curves[0].loo_error == c.loo_error);
  }
  const double scale = chosen(s, "basis.width_scale");
  const double alpha = chosen(s, "weight-penalty.alpha");
  const auto by_hand = radial::train(
      parse(wine + "[weight-penalty]\nplugin = \"rkhs\"\n",
            {"basis.width_scale=" + radial::to_string(radial::ParamValue(scale)),
             "weight-penalty.alpha=" + radial::to_string(radial::ParamValue(alpha))}),
      plugins());
  CHECK_FALSE(by_hand.report.selection);
  CHECK(by_hand.model.weights == result.model.weights);
}
