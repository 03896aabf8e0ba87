// The template plugin: the farthest-point rule on points whose answer is known, its library
// loaded alone (Radial::testing, which also gives Catch2's main), and the SDK's conformance kit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/plugin_checks.hpp>

using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::CentreLearner> make(std::int64_t count) {
  const auto& info = plugin_under_test().require(radial::Slot::Centres, "farthest-point");
  return plugin_under_test().make_centre_learner(
      "farthest-point", radial::validate_params(info.params, {{"count", count}}, "test"));
}

radial::Dataset points(const std::vector<std::pair<double, double>>& xy) {
  radial::Dataset data;
  data.inputs = xt::empty<double>({xy.size(), std::size_t(2)});
  for (std::size_t i = 0; i < xy.size(); ++i) {
    data.inputs(i, 0) = xy[i].first;
    data.inputs(i, 1) = xy[i].second;
  }
  data.values = xt::zeros<double>({xy.size()});
  data.task = radial::Task::Regression;
  return data;
}

}  // namespace

TEST_CASE("farthest-point takes the corners of a square before its centre") {
  // Four corners and the centre of a square. From a corner the next picks are the opposite
  // corner and the two others; from the centre (every corner at squared distance 2) three
  // corners. Either way the row left out is 2 from its nearest centre (squared).
  const radial::Dataset data = points({{0, 0}, {0, 2}, {2, 0}, {2, 2}, {1, 1}});
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    radial::FitContext ctx(seed);
    const radial::Centres c = make(4)->fit(data, nullptr, ctx);
    REQUIRE(c.count() == 4);
    std::set<std::pair<double, double>> got;
    for (std::size_t j = 0; j < 4; ++j) got.insert({c.means(j, 0), c.means(j, 1)});
    CHECK(got.size() == 4);
    if (got.count({1.0, 1.0}) == 0)
      CHECK(got == std::set<std::pair<double, double>>{{0, 0}, {0, 2}, {2, 0}, {2, 2}});
    CHECK(ctx.report.final_error == 2.0);
    CHECK(ctx.report.converged());
  }
}

TEST_CASE("farthest-point refuses more centres than distinct rows") {
  const radial::Dataset data = points({{0, 0}, {0, 0}, {1, 1}});
  radial::FitContext ctx(1);
  CHECK_THROWS_AS(make(3)->fit(data, nullptr, ctx), radial::InputError);
  CHECK_THROWS_AS(make(4)->fit(data, nullptr, ctx), radial::InputError);
}

TEST_CASE("farthest-point loads alone from its build folder; its centres are training rows") {
  radial::Registry registry;
  const radial::ComponentInfo& info = radial::testing::require_plugin(
      registry, "centres-farthest-point", radial::Slot::Centres, "farthest-point");
  const auto learner = registry.make_centre_learner(
      "farthest-point", radial::validate_params(info.params, {{"count", std::int64_t(3)}}, "test"));
  const std::vector<std::pair<double, double>> rows = {{0, 0}, {5, 0}, {0, 5}, {1, 1}, {4, 4}};
  radial::FitContext ctx(7);
  const radial::Centres c = learner->fit(points(rows), nullptr, ctx);
  REQUIRE(c.count() == 3);
  for (std::size_t j = 0; j < 3; ++j)
    CHECK(std::count(rows.begin(), rows.end(), std::pair{c.means(j, 0), c.means(j, 1)}) == 1);
}

TEST_CASE("farthest-point passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "farthest-point");
}
