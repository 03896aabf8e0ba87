// kmeans centre learner, loaded as the host loads it: centres and spherical widths in closed
// form, the small-cluster, empty-cluster and variance-floor guards, the report.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>

namespace {

const radial::Registry& registry() {
  return radial::testing::plugin_registry({"centres-kmeans"});
}

std::shared_ptr<radial::CentreLearner> make_kmeans(
    const std::map<std::string, radial::ParamValue>& given) {
  return radial::testing::make_centre_learner(registry(), "kmeans", given);
}

radial::Dataset dataset(const radial::Matrix& x) {
  radial::Dataset data;
  data.inputs = x;
  data.task = radial::Task::Regression;
  data.values = xt::zeros<double>({x.shape(0)});
  return data;
}

// Two squares of side 2 centred on (1, 1) and (11, 11).
radial::Matrix two_squares() {
  return {{0, 0}, {2, 0}, {0, 2}, {2, 2}, {10, 10}, {12, 10}, {10, 12}, {12, 12}};
}

std::size_t centre_near(const radial::Centres& c, double x, double y) {
  for (std::size_t j = 0; j < c.count(); ++j)
    if (std::abs(c.means(j, 0) - x) < 1e-12 && std::abs(c.means(j, 1) - y) < 1e-12) return j;
  return c.count();
}

const radial::Warning* find_warning(const radial::FitContext& ctx, const std::string& guard) {
  for (const auto& w : ctx.report.warnings)
    if (w.guard == guard) return &w;
  return nullptr;
}

}  // namespace

TEST_CASE("kmeans finds the cluster means and the spherical ML variances", "[kmeans]") {
  auto learner = make_kmeans({{"count", std::int64_t(2)}});
  radial::FitContext ctx(3);
  const auto centres = learner->fit(dataset(two_squares()), nullptr, ctx);
  centres.check();
  REQUIRE(centres.count() == 2);
  CHECK(centres.shape == radial::Shape::Spherical);
  const std::size_t a = centre_near(centres, 1, 1), b = centre_near(centres, 11, 11);
  REQUIRE(a < 2);
  REQUIRE(b < 2);
  // Every member is at squared distance 2 from its mean: variance = 2 / d = 1.
  CHECK(centres.variances(a) == Approx(1.0));
  CHECK(centres.variances(b) == Approx(1.0));
  CHECK(ctx.report.final_error == Approx(16.0));
  CHECK(ctx.report.figures.at("inertia") == Approx(16.0));
  CHECK(ctx.report.converged());
  CHECK(ctx.report.iterations >= 1);
  CHECK(ctx.report.warnings.empty());
}

TEST_CASE("kmeans: a singleton cluster takes the squared distance to the nearest centre",
          "[kmeans]") {
  radial::Matrix x = xt::concatenate(xt::xtuple(two_squares(), radial::Matrix{{30, 30}}));
  auto learner = make_kmeans({{"count", std::int64_t(3)}});
  radial::FitContext ctx(1);
  const auto centres = learner->fit(dataset(x), nullptr, ctx);
  centres.check();
  const std::size_t lone = centre_near(centres, 30, 30);
  REQUIRE(lone < 3);
  REQUIRE(centre_near(centres, 11, 11) < 3);
  CHECK(centres.variances(lone) == Approx(2 * 19.0 * 19.0));  // ||(30,30) - (11,11)||^2
  const auto* w = find_warning(ctx, "small-cluster");
  REQUIRE(w != nullptr);
  CHECK_THAT(w->message, Catch::Contains("1 of 3"));
  CHECK(w->setting.find("centres.count") != std::string::npos);
}

TEST_CASE("kmeans reports repaired empty clusters and floors zero variances", "[kmeans]") {
  // 19 copies of (0, 0) and one (1, 1): a random start often picks two copies of (0, 0), and
  // the second cluster is then empty until it is re-seeded at (1, 1), the farthest point.
  radial::Matrix x = xt::zeros<double>({std::size_t(20), std::size_t(2)});
  x(19, 0) = x(19, 1) = 1.0;
  auto learner = make_kmeans({{"count", std::int64_t(2)}, {"init", std::string("random")}});
  std::size_t repaired = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    radial::FitContext ctx(seed);
    const auto centres = learner->fit(dataset(x), nullptr, ctx);
    centres.check();
    INFO("seed " << seed);
    const std::size_t zero = centre_near(centres, 0, 0), one = centre_near(centres, 1, 1);
    REQUIRE(zero < 2);
    REQUIRE(one < 2);
    CHECK(ctx.report.final_error == 0.0);
    CHECK(centres.variances(one) == Approx(2.0));  // singleton: distance^2 to (0, 0)
    // The 19 coincident members have no spread: floored at 1e-6 x mean feature variance.
    CHECK(centres.variances(zero) == Approx(1e-6 * 0.0475));
    CHECK(find_warning(ctx, "variance-floor") != nullptr);
    if (const auto* w = find_warning(ctx, "empty-cluster")) {
      ++repaired;
      CHECK(w->setting.find("centres.count") != std::string::npos);
      CHECK(ctx.report.figures.at("empty_cluster_repairs") >= 1.0);
    }
  }
  CHECK(repaired > 0);  // each seed avoids it with probability 0.1 at most
}

TEST_CASE("kmeans: tolerance 0 runs exactly `iterations`; the error is the inertia",
          "[kmeans]") {
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal;
  radial::Matrix x = xt::empty<double>({std::size_t(3000), std::size_t(3)});
  for (auto& v : x) v = normal(rng);
  auto learner = make_kmeans({{"count", std::int64_t(9)}, {"iterations", std::int64_t(7)},
                              {"tolerance", 0.0}});
  radial::FitContext ctx(2);
  const auto centres = learner->fit(dataset(x), nullptr, ctx);
  CHECK(ctx.report.iterations == 7);
  // Brute force: sum over rows of the squared distance to the nearest centre.
  double inertia = 0;
  for (std::size_t i = 0; i < x.shape(0); ++i) {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < centres.count(); ++j) {
      double s = 0;
      for (std::size_t k = 0; k < 3; ++k) s += std::pow(x(i, k) - centres.means(j, k), 2);
      best = std::min(best, s);
    }
    inertia += best;
  }
  CHECK(ctx.report.final_error == Approx(inertia).epsilon(1e-12));

  radial::FitContext two_threads(2, 2);
  const auto parallel = learner->fit(dataset(x), nullptr, two_threads);
  CHECK(parallel.means == centres.means);  // results never depend on the thread count
  CHECK(parallel.variances == centres.variances);
}

TEST_CASE("kmeans: inertia_tolerance \"auto\" stops at 1% with the auto count, runs on with "
          "a count given",
          "[kmeans]") {
  // 4,000 rows of a 5-d Gaussian: the auto count is 4 ln N - 24 = 9.2 -> 583 centres.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  radial::Matrix x = xt::empty<double>({std::size_t(4000), std::size_t(5)});
  for (auto& v : x) v = normal(rng);
  const auto run = [&](const std::map<std::string, radial::ParamValue>& given) {
    radial::FitContext ctx(5);
    const auto centres = make_kmeans(given)->fit(dataset(x), nullptr, ctx);
    return std::make_pair(centres.count(), ctx.report);
  };
  const auto [m, automatic] = run({});
  const auto [m_settled, settled] = run({{"count", std::int64_t(m)},
                                        {"inertia_tolerance", 0.01}});
  const auto [m_plain, plain] = run({{"count", std::int64_t(m)}});
  const auto [m_zero, zero] = run({{"inertia_tolerance", 0.0}});
  CHECK(automatic.iterations == settled.iterations);
  CHECK(automatic.final_error == settled.final_error);
  CHECK_THAT(automatic.message, Catch::Contains("inertia_tolerance"));
  // A count given (or 0 named): Lloyd to the tolerance on the centres' movement.
  CHECK(plain.iterations == zero.iterations);
  CHECK(plain.final_error == zero.final_error);
  CHECK(plain.iterations > automatic.iterations);
  CHECK(plain.final_error < automatic.final_error);
  CHECK_THAT(plain.message, Catch::Contains("moved at most the tolerance"));
  CHECK_NOTHROW(make_kmeans({{"inertia_tolerance", std::string("auto")}}));
}

TEST_CASE("kmeans refuses more centres than rows and bad parameters", "[kmeans]") {
  auto learner = make_kmeans({{"count", std::int64_t(9)}});
  radial::FitContext ctx(1);
  CHECK_THROWS_WITH(learner->fit(dataset(two_squares()), nullptr, ctx),
                    Catch::Contains("count = 9") && Catch::Contains("centres.count <= 8"));
  CHECK_THROWS_AS(make_kmeans({{"init", std::string("forgy")}}), radial::ParameterError);
  CHECK_THROWS_AS(make_kmeans({{"tolerance", -1.0}}), radial::ParameterError);
  CHECK_THROWS_AS(make_kmeans({{"inertia_tolerance", -0.5}}), radial::ParameterError);
  CHECK_THROWS_AS(make_kmeans({{"inertia_tolerance", std::string("choose")}}),
                  radial::ParameterError);
  CHECK_THROWS_AS(make_kmeans({{"iterations", std::int64_t(0)}}), radial::ParameterError);
}

TEST_CASE("kmeans passes the plugin conformance kit", "[kmeans][conformance]") {
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-centres-kmeans.so");
  radial::conformance::check_plugin(fresh, "kmeans");
}
