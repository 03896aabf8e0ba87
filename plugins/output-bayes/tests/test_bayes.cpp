// bayes: the training-set posterior and the network's predictions against the closed form
// p(C_k|x) = P(C_k) sum_j pi_jk N(x|j) / sum_k' (...) for hand-set 1-D mixtures, the K-d tree
// path, and the refusals and guards.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/model/model.hpp>
#include <radial/model/network.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/plugin_checks.hpp>

#include "bayes.hpp"

namespace {

using radial::Centres;
using radial::Matrix;

// Class 0: w 0.3 N(-1, 0.5) + w 0.7 N(0.5, 1); class 1: N(2, 0.8). Priors 0.4, 0.6.
Centres mixtures() {
  Centres c;
  c.means = Matrix{{-1.0}, {0.5}, {2.0}};
  c.shape = radial::Shape::Diagonal;
  c.diagonal = Matrix{{0.5}, {1.0}, {0.8}};
  c.mixing = Matrix{{0.3, 0.0}, {0.7, 0.0}, {0.0, 1.0}};
  c.owner = radial::Labels{0, 0, 1};
  c.class_priors = radial::Vector{0.4, 0.6};
  return c;
}

double pdf(double x, double mean, double var) {
  return std::exp(-0.5 * (x - mean) * (x - mean) / var) / std::sqrt(2.0 * M_PI * var);
}

// Closed-form posterior of class 1.
double posterior1(double x) {
  const double a0 = 0.4 * (0.3 * pdf(x, -1.0, 0.5) + 0.7 * pdf(x, 0.5, 1.0));
  const double a1 = 0.6 * pdf(x, 2.0, 0.8);
  return a1 / (a0 + a1);
}

radial::Dataset data() {
  radial::Dataset d;
  d.inputs = Matrix{{-2.0}, {-0.5}, {0.3}, {1.2}, {1.6}, {2.5}, {3.0}, {0.9}};
  d.classes = radial::Labels{0, 0, 0, 1, 0, 1, 1, 1};
  d.num_classes = 2;
  d.class_values = {0.0, 1.0};
  d.task = radial::Task::Classification;
  return d;
}

radial::Registry& registry() {
  static radial::Registry r;
  static bool loaded = false;
  if (!loaded) {
    r.load_file(radial::testing::plugin_dir() / "libradial-output-bayes.so");
    r.load_file(radial::testing::plugin_dir() / "libradial-basis-gaussian.so");
    loaded = true;
  }
  return r;
}

radial::Params params(radial::Slot slot, const std::string& id,
                      std::map<std::string, radial::ParamValue> given) {
  return radial::validate_params(registry().require(slot, id).params, given, "plugin " + id);
}

}  // namespace

TEST_CASE("bayes: training figures and predictions equal the closed-form posterior", "[bayes]") {
  const radial::Dataset train = data();
  Centres centres = mixtures();
  radial::FitContext ctx(1);
  auto basis = registry().make_basis(
      "gaussian", params(radial::Slot::Basis, "gaussian", {{"density", true}}));
  basis->prepare(centres, ctx);
  auto output = registry().make_output_layer(
      "bayes", params(radial::Slot::Output, "bayes", {}));
  const radial::DesignMatrix design(train.inputs, centres, *basis);
  const radial::TrainingProblem problem{design, train, centres, *basis};
  const radial::OutputWeights w = output->fit(problem, nullptr, ctx);
  CHECK(w.link == radial::Link::Bayes);
  // The stored weights of the bayes rule, by hand: log pi_jk, then log P(C_k) in the last row.
  const double minus_inf = -std::numeric_limits<double>::infinity();
  const Matrix expected = {{std::log(0.3), minus_inf},
                           {std::log(0.7), minus_inf},
                           {minus_inf, 0.0},
                           {std::log(0.4), std::log(0.6)}};
  REQUIRE(w.weights.shape(0) == 4);
  REQUIRE(w.weights.shape(1) == 2);
  for (std::size_t i = 0; i < expected.size(); ++i)
    CHECK(w.weights.data()[i] == expected.data()[i]);
  CHECK(ctx.report.warnings.empty());

  double log_posterior = 0;
  std::size_t wrong = 0;
  for (std::size_t n = 0; n < train.rows(); ++n) {
    const double p1 = posterior1(train.inputs(n, 0));
    log_posterior += std::log(train.classes(n) == 1 ? p1 : 1.0 - p1);
    wrong += (p1 > 0.5) != (train.classes(n) == 1);
  }
  CHECK(ctx.report.figures.at("log_posterior") == Approx(log_posterior).epsilon(1e-12));
  CHECK(ctx.report.figures.at("train_error") == Approx(double(wrong) / 8.0));
  CHECK(ctx.report.final_error == Approx(-log_posterior / 8.0).epsilon(1e-12));

  // The framework's network computes the same posterior from the model.
  radial::Model model;
  model.centres = centres;
  model.basis_id = "gaussian";
  model.link = w.link;
  model.weights = w.weights;
  model.class_values = train.class_values;
  model.feature_names = {"x"};
  const radial::Network network(model, basis);
  const Matrix grid = Matrix{{-3.0}, {-1.0}, {0.0}, {1.0}, {1.5}, {2.2}, {4.0}};
  const Matrix y = network.predict(grid);
  for (std::size_t n = 0; n < grid.shape(0); ++n) {
    CHECK(y(n, 1) == Approx(posterior1(grid(n, 0))).epsilon(1e-10));
    CHECK(y(n, 0) + y(n, 1) == Approx(1.0));
  }
}

TEST_CASE("bayes: the K-d tree path", "[bayes][kdtree]") {
  const radial::Dataset train = data();
  const Centres centres = mixtures();
  radial::plugins::BayesOptions brute, exact, coarse;
  exact.use_tree = true;
  exact.tree.threshold = std::numeric_limits<double>::infinity();
  coarse.use_tree = true;
  coarse.tree.threshold = 0.01;  // boxes of +-0.1 sigma: most rows fall outside every box
  coarse.tree.leaf_size = 1;
  coarse.tree.min_points = 1;
  radial::plugins::BayesFigures fb, fe, fc;
  const Matrix pb = radial::plugins::bayes_log_posterior(train.inputs, centres, brute, &train.classes, &fb);
  const Matrix pe = radial::plugins::bayes_log_posterior(train.inputs, centres, exact, &train.classes, &fe);
  CHECK(fe.log_posterior == Approx(fb.log_posterior).epsilon(1e-12));
  for (std::size_t i = 0; i < pb.size(); ++i) CHECK(pe.data()[i] == Approx(pb.data()[i]).epsilon(1e-12));
  const Matrix pc = radial::plugins::bayes_log_posterior(train.inputs, centres, coarse, &train.classes, &fc);
  // Rows outside every box fall back to their own class's Gaussians: the figure stays finite,
  // other classes may get posterior 0 (log -inf), never NaN.
  CHECK(fc.fallback_rows > 0);
  CHECK(std::isfinite(fc.log_posterior));
  CHECK(fc.log_posterior <= 0);
  for (const double v : pc) CHECK_FALSE(std::isnan(v));
}

TEST_CASE("bayes: refusals and guards", "[bayes]") {
  const radial::Dataset train = data();
  radial::FitContext ctx(1);
  auto output = registry().make_output_layer(
      "bayes", params(radial::Slot::Output, "bayes", {}));

  SECTION("centres without mixing weights") {
    Centres centres = mixtures();
    centres.mixing = Matrix();
    auto basis = registry().make_basis(
        "gaussian", params(radial::Slot::Basis, "gaussian", {{"density", true}}));
    basis->prepare(centres, ctx);
    const radial::DesignMatrix design(train.inputs, centres, *basis);
    const radial::TrainingProblem problem{design, train, centres, *basis};
    radial::testing::check_throws_with<radial::InputError>(
        [&] { output->fit(problem, nullptr, ctx); }, "mode = \"per-class\"");
  }
  SECTION("a basis that is not the normalised density is named in the report") {
    Centres centres = mixtures();
    auto basis = registry().make_basis(
        "gaussian", params(radial::Slot::Basis, "gaussian", {{"density", false}}));
    basis->prepare(centres, ctx);
    const radial::DesignMatrix design(train.inputs, centres, *basis);
    const radial::TrainingProblem problem{design, train, centres, *basis};
    output->fit(problem, nullptr, ctx);
    REQUIRE(ctx.report.warnings.size() == 1);
    CHECK(ctx.report.warnings[0].guard == "basis-not-density");
  }
  SECTION("regression targets") {
    Centres centres = mixtures();
    radial::Dataset regression = train;
    regression.task = radial::Task::Regression;
    regression.num_classes = 0;
    auto basis = registry().make_basis(
        "gaussian", params(radial::Slot::Basis, "gaussian", {{"density", true}}));
    basis->prepare(centres, ctx);
    const radial::DesignMatrix design(regression.inputs, centres, *basis);
    const radial::TrainingProblem problem{design, regression, centres, *basis};
    CHECK_THROWS_AS(output->fit(problem, nullptr, ctx), radial::InputError);
  }
}
