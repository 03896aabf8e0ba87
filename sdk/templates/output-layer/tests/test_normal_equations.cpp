// The template plugin against closed forms: with as many rows as weights the fit interpolates
// the targets; under a quadratic penalty the penalised gradient vanishes after one step; the
// group means of a saturated design (Radial::testing's output-layer checks, which also give
// Catch2's main); and the SDK's conformance kit.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xview.hpp>

#include <radial/network/basis.hpp>
#include <radial/network/design_matrix.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/output_layer_checks.hpp>
#include <radial/network/weight_penalty.hpp>

using radial::Matrix;
using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::OutputLayer> make() {
  const auto& info = plugin_under_test().require(radial::Slot::Output, "normal-equations");
  return plugin_under_test().make_output_layer(
      "normal-equations", radial::validate_params(info.params, {}, "test"));
}

// alpha/2 ||W||^2 over the rows but the bias.
class Ridge final : public radial::WeightPenalty {
 public:
  explicit Ridge(double alpha) : alpha_(alpha) {}
  double penalty(const Matrix& w) const override {
    double s = 0;
    for (std::size_t p = 0; p < (w.shape(0) - 1) * w.shape(1); ++p) s += w.data()[p] * w.data()[p];
    return 0.5 * alpha_ * s;
  }
  void add_gradient(const Matrix& w, Matrix& g) const override {
    for (std::size_t p = 0; p < (w.shape(0) - 1) * w.shape(1); ++p) g.data()[p] += alpha_ * w.data()[p];
  }
  void add_hessian(const Matrix& w, Matrix& h) const override {
    for (std::size_t p = 0; p < (w.shape(0) - 1) * w.shape(1); ++p) h(p, p) += alpha_;
  }

 private:
  double alpha_;
};

// A fixed basis for the tests, phi = 1 / (1 + r^2) (positive definite, so square designs on
// distinct points are invertible).
class InverseQuadratic final : public radial::Basis {
 public:
  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres&, radial::FitContext&) override {}
  void map(Matrix& r2) const override {
    for (double& v : r2) v = 1.0 / (1.0 + v);
  }
  radial::State state() const override { return {}; }
  void load_state(const radial::State&) override {}
};

// N rows in 2-d with smooth regression targets; the centres are the first M rows.
struct Problem {
  radial::Dataset data;
  radial::Centres centres;
  InverseQuadratic basis;
};

void fill(Problem& p, std::size_t rows, std::size_t m) {
  p.data.task = radial::Task::Regression;
  p.data.inputs = xt::empty<double>({rows, std::size_t(2)});
  p.data.values = xt::empty<double>({rows});
  for (std::size_t i = 0; i < rows; ++i) {
    p.data.inputs(i, 0) = std::cos(1.3 * double(i));
    p.data.inputs(i, 1) = std::sin(0.7 * double(i));
    p.data.values(i) = std::sin(2.0 * p.data.inputs(i, 0)) + p.data.inputs(i, 1);
  }
  p.centres.means = xt::view(p.data.inputs, xt::range(0, m), xt::all());
}

}  // namespace

TEST_CASE("normal-equations interpolates when the rows are as many as the weights") {
  Problem p;
  fill(p, 7, 6);  // 6 centres + the bias: a square, invertible design
  const radial::DesignMatrix design(p.data.inputs, p.centres, p.basis);
  radial::FitContext ctx(1);
  const radial::OutputWeights w =
      make()->fit(radial::TrainingProblem{design, p.data, p.centres, p.basis}, nullptr, ctx);
  CHECK(ctx.report.converged());
  const Matrix phi = design.materialise();
  for (std::size_t n = 0; n < 7; ++n) {
    double y = 0;
    for (std::size_t j = 0; j < 7; ++j) y += phi(n, j) * w.weights(j, 0);
    CHECK(y == Approx(p.data.values(n)).margin(1e-8));
  }
}

TEST_CASE("normal-equations: under a quadratic penalty one step reaches the minimum") {
  Problem p;
  fill(p, 40, 5);
  const radial::DesignMatrix design(p.data.inputs, p.centres, p.basis);
  const Ridge ridge(0.3);
  radial::FitContext ctx(1);
  const radial::OutputWeights w =
      make()->fit(radial::TrainingProblem{design, p.data, p.centres, p.basis}, &ridge, ctx);
  CHECK(ctx.report.converged());
  CHECK(ctx.report.iterations <= 2);  // the second step only confirms the first
  // The penalised gradient Phi^T (Phi W - t) + alpha W (bias free) vanishes.
  const Matrix phi = design.materialise();
  for (std::size_t j = 0; j < 6; ++j) {
    double g = j < 5 ? 0.3 * w.weights(j, 0) : 0.0;
    for (std::size_t n = 0; n < 40; ++n) {
      double y = 0;
      for (std::size_t i = 0; i < 6; ++i) y += phi(n, i) * w.weights(i, 0);
      g += phi(n, j) * (y - p.data.values(n));
    }
    CHECK(std::fabs(g) < 1e-9);
  }
}

TEST_CASE("normal-equations: linear outputs on a saturated design are the group means") {
  radial::testing::check_layer_group_means(*make());
}

TEST_CASE("normal-equations passes the Radial conformance kit") {
  radial::conformance::check_plugin(plugin_under_test(), "normal-equations");
}
