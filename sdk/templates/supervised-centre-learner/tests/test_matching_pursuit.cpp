// The template plugin: matching pursuit on a design whose answer is known, the widths the
// pipeline's basis gave the candidates, its library loaded alone, and the conformance kit.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/network/candidate_basis.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>

using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::CentreLearner> make(std::int64_t count) {
  const auto& info = plugin_under_test().require(radial::Slot::Centres, "matching-pursuit");
  return plugin_under_test().make_centre_learner(
      "matching-pursuit", radial::validate_params(info.params, {{"count", count}}, "test"));
}

// A basis of the test's own: phi = exp(-r^2 / (2 s^2)) on Euclidean distances, which prepare()
// records as a spherical variance s^2 on every centre (as a width rule would).
class Bump final : public radial::Basis {
 public:
  explicit Bump(double s) : s_(s) {}
  radial::Metric metric() const override { return radial::Metric::Shape; }
  void prepare(radial::Centres& c, radial::FitContext&) override {
    c.shape = radial::Shape::Spherical;
    c.variances = xt::ones<double>({c.count()}) * (s_ * s_);
  }
  void map(radial::Matrix& r2) const override {
    for (double& v : r2) v = std::exp(-0.5 * v);
  }
  radial::State state() const override { return {}; }
  void load_state(const radial::State&) override {}

 private:
  double s_;
};

}  // namespace

TEST_CASE("matching-pursuit picks the row under each bump of the target") {
  // Targets: two narrow bumps at x = 2 and x = 7 on a grid 0..9; with a basis of the same
  // width the columns of rows 2 and 7 fit them exactly, and are chosen first.
  radial::Dataset data;
  data.inputs = xt::empty<double>({std::size_t(10), std::size_t(1)});
  data.values = xt::zeros<double>({std::size_t(10)});
  for (std::size_t i = 0; i < 10; ++i) {
    data.inputs(i, 0) = double(i);
    data.values(i) = 2 * std::exp(-0.5 * std::pow(double(i) - 2, 2) / 0.25) +
                     std::exp(-0.5 * std::pow(double(i) - 7, 2) / 0.25);
  }
  data.task = radial::Task::Regression;
  radial::CandidateBasis basis([] { return std::make_shared<Bump>(0.5); });
  radial::FitContext ctx(1);
  const radial::Centres c = make(2)->fit_on_basis(data, nullptr, basis, ctx);
  REQUIRE(c.count() == 2);
  CHECK(c.means(0, 0) == 2.0);
  CHECK(c.means(1, 0) == 7.0);
  // The centres carry the widths the pipeline's basis gave the candidates.
  CHECK(c.shape == radial::Shape::Spherical);
  CHECK(c.variances(0) == 0.25);
  CHECK(ctx.report.final_error < 1e-20);
}

TEST_CASE("matching-pursuit passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "matching-pursuit");
}
