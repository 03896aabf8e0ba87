// gmm: the plugin as the host loads it (pooled and per-class centres, errors). The EM it runs
// is the framework's, tested in tests/numerics/test_mixture_em.cpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/kdtree.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/class_mixtures.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/plugin_checks.hpp>
#include <radial/testing/registry.hpp>

namespace {

using radial::Centres;
using radial::Matrix;
using radial::Shape;
using radial::Vector;

// Standardised iris features (population standard deviation).
Matrix iris_standardised() { return radial::testing::load_standardised("iris.csv", 150).x; }

const radial::Registry& registry() {
  return radial::testing::plugin_registry({"centres-gmm"});
}

std::shared_ptr<radial::CentreLearner> make_gmm(
    const std::map<std::string, radial::ParamValue>& given) {
  return radial::testing::make_centre_learner(registry(), "gmm", given);
}

}  // namespace

TEST_CASE("gmm plugin: pooled and per-class centres", "[gmm][plugin]") {
  radial::Dataset data = radial::read_csv(radial::testing::source_dir() / "docs/examples/data/iris.csv");
  data.inputs = iris_standardised();

  SECTION("pooled, full covariances") {
    auto learner = make_gmm({{"count", std::int64_t(4)}, {"covariance", std::string("full")}});
    radial::FitContext ctx(7);
    const Centres c = learner->fit(data, nullptr, ctx);
    CHECK(c.count() == 4);
    CHECK(c.shape == Shape::Full);
    CHECK_FALSE(c.has_mixing());
    const auto& trace = ctx.report.series.at("log_likelihood");
    std::string guards;
    for (const auto& w : ctx.report.warnings) guards += w.guard + ": " + w.message + "\n";
    INFO(guards);
    for (std::size_t i = 1; i < trace.size(); ++i) CHECK(trace[i] >= trace[i - 1] - 1e-9 * std::fabs(trace[i - 1]));
    CHECK(ctx.report.figures.at("log_likelihood") == Approx(trace.back()));
    // With this seed one component settles on 3 rows in 4-D: its covariance is singular and
    // the floor must fire and be named in the report.
    bool floor_named = false;
    for (const auto& w : ctx.report.warnings) floor_named = floor_named || w.guard == "covariance-floor";
    CHECK(floor_named);
  }
  SECTION("per-class, diagonal, with the K-d tree") {
    auto learner = make_gmm({{"count", std::int64_t(2)}, {"mode", std::string("per-class")},
                             {"kdtree", true}});
    radial::FitContext ctx(7);
    const Centres c = learner->fit(data, nullptr, ctx);
    REQUIRE(c.count() == 6);
    CHECK(c.shape == Shape::Diagonal);
    REQUIRE(c.has_mixing());
    CHECK_NOTHROW(c.check());
    for (std::size_t j = 0; j < 6; ++j) {
      CHECK(c.owner(j) == std::int64_t(j / 2));
      for (std::size_t k = 0; k < 3; ++k)
        if (k != j / 2) CHECK(c.mixing(j, k) == 0.0);
    }
    for (std::size_t k = 0; k < 3; ++k) CHECK(c.class_priors(k) == Approx(50.0 / 150.0));
    CHECK(ctx.report.series.count("log_likelihood.class2") == 1);
  }
  SECTION("a class with fewer rows than count is refused, naming the class") {
    auto learner = make_gmm({{"count", std::int64_t(60)}, {"mode", std::string("per-class")}});
    radial::FitContext ctx(7);
    radial::testing::check_throws_with<radial::InputError>(
        [&] { learner->fit(data, nullptr, ctx); }, "class 0 has 50 training rows");
  }
  SECTION("the seed decides the result") {
    auto learner = make_gmm({{"count", std::int64_t(3)}});
    radial::FitContext a(3), b(3);
    const Centres ca = learner->fit(data, nullptr, a);
    const Centres cb = learner->fit(data, nullptr, b);
    CHECK(ca.means == cb.means);
  }
}
