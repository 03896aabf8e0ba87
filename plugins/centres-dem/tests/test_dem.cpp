// dem: the extended Baum-Welch mean step against finite differences of log R^d, DEM improving
// log R^d over EM (paper 002, fig. 2), and the plugin. The discriminative E-step is the
// framework's, tested in tests/numerics/test_mixture_em.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/kdtree.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/class_mixtures.hpp>
#include <radial/testing/paths.hpp>

#include "dem.hpp"

namespace {

using radial::testing::Data;
using radial::testing::direct_log_rd;
using radial::testing::em_start;
using radial::testing::load_standardised;
using radial::testing::log_weights;

using radial::Centres;
using radial::Labels;
using radial::Matrix;


}  // namespace

TEST_CASE("the extended Baum-Welch mean step follows the gradient of log R^d", "[dem]") {
  // For large D, mu~ - mu = sum_n (r^num - r^den)(x_n - mu) / (C1num - C1den + D)
  //                       = sigma^2 d log R^d / d mu / (C1num - C1den + D).
  const Data data = load_standardised("iris.csv", 150);
  Centres c = em_start(data, 2, 3);
  radial::Vector lnum, lden;
  log_weights(c, lnum, lden);
  radial::MixtureCounts num, den;
  radial::EStepOptions e;
  radial::e_step_discriminative(data.x, data.y, c, lnum, lden, e, num, den);

  radial::plugins::DemOptions options;
  options.learning_rate = 1e-4;
  options.iterations = 1;
  options.tolerance = 0;
  radial::FitContext ctx(1);
  const Centres stepped = radial::plugins::dem_refine(data.x, data.y, c, options, ctx);
  REQUIRE(ctx.report.series.at("log_Rd").size() == 2);
  REQUIRE(ctx.report.series.at("log_Rd")[1] > ctx.report.series.at("log_Rd")[0]);

  const double h = 1e-5;
  for (std::size_t j = 0; j < c.count(); ++j)
    for (std::size_t l = 0; l < c.dim(); ++l) {
      Centres plus = c, minus = c;
      plus.means(j, l) += h;
      minus.means(j, l) -= h;
      const double gradient = double(direct_log_rd(plus, data) - direct_log_rd(minus, data)) / (2 * h);
      const double d = den.c1(j) / options.learning_rate;
      const double implied = (stepped.means(j, l) - c.means(j, l)) * (num.c1(j) - den.c1(j) + d) /
                             c.diagonal(j, l);
      CHECK(implied == Approx(gradient).epsilon(1e-4).margin(1e-6));
    }
}

TEST_CASE("DEM increases log R^d over the EM solution on training data", "[dem]") {
  const Data data = load_standardised("waveform.csv", 400);
  const Centres start = em_start(data, 4, 4);
  const double rd_em = double(direct_log_rd(start, data));
  radial::plugins::DemOptions options;
  options.iterations = 30;
  radial::FitContext ctx(1);
  const Centres out = radial::plugins::dem_refine(data.x, data.y, start, options, ctx);
  const double rd_dem = double(direct_log_rd(out, data));
  CHECK(ctx.report.figures.at("log_Rd_em") == Approx(rd_em).epsilon(1e-9));
  CHECK(ctx.report.figures.at("log_Rd") == Approx(rd_dem).epsilon(1e-9));
  CHECK(rd_dem > rd_em + 1.0);
  CHECK_NOTHROW(out.check());
  // eta grows after each improvement and shrinks after each loss.
  const auto& rd = ctx.report.series.at("log_Rd");
  const auto& eta = ctx.report.series.at("eta");
  REQUIRE(eta.size() == rd.size());
  double best = rd[0];
  for (std::size_t i = 1; i < rd.size(); ++i) {
    if (rd[i] >= best) {
      CHECK(eta[i] == Approx(eta[i - 1] * options.eta_grow));
      best = rd[i];
    } else {
      CHECK(eta[i] == Approx(eta[i - 1] * options.eta_shrink));
    }
  }
}

TEST_CASE("a large learning rate keeps every variance positive", "[dem]") {
  const Data data = load_standardised("iris.csv", 150);
  const Centres start = em_start(data, 3, 5);
  radial::plugins::DemOptions options;
  options.learning_rate = 1e3;
  options.iterations = 10;
  options.em.covariance_floor = 1e-300;  // D_min alone must keep the variances positive
  radial::FitContext ctx(1);
  const Centres out = radial::plugins::dem_refine(data.x, data.y, start, options, ctx);
  CHECK_NOTHROW(out.check());
  CHECK(xt::amin(out.diagonal)() > 0);
  CHECK(ctx.report.figures.at("log_Rd") >= ctx.report.figures.at("log_Rd_em"));
}

TEST_CASE("dem plugin as the host loads it", "[dem][plugin]") {
  radial::Registry registry;
  registry.load_file(radial::testing::plugin_dir() / "libradial-centres-dem.so");
  const auto& info = registry.require(radial::Slot::Centres, "dem");
  radial::Dataset train = radial::read_csv(radial::testing::source_dir() / "docs/examples/data/iris.csv");
  train.inputs = load_standardised("iris.csv", 150).x;
  auto learner = registry.make_centre_learner(
      "dem", radial::validate_params(info.params,
                                     {{"count", std::int64_t(2)}, {"kdtree", true}, {"iterations", std::int64_t(10)}},
                                     "plugin dem"));
  radial::FitContext ctx(9);
  const Centres c = learner->fit(train, nullptr, ctx);
  REQUIRE(c.count() == 6);
  CHECK(c.shape == radial::Shape::Diagonal);
  CHECK_NOTHROW(c.check());
  CHECK(c.class_priors.size() == 3);
  CHECK(ctx.report.figures.at("log_Rd") >= ctx.report.figures.at("log_Rd_em"));
  CHECK(ctx.report.series.at("log_Rd").size() == ctx.report.series.at("eta").size());
  CHECK(ctx.report.figures.count("mean_candidates") == 1);

  radial::Dataset regression = train;
  regression.task = radial::Task::Regression;
  regression.num_classes = 0;
  CHECK_THROWS_AS(learner->fit(regression, nullptr, ctx), radial::InputError);
}
