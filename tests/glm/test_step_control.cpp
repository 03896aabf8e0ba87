// Where NETLAB's plain Newton steps fail, IRLS with step control still reaches the quasi-Newton
// minimum: 20 Gaussian centres on synth3 (logistic) and on iris (softmax, exact Hessian), with
// a tiny weight decay (alpha = 1e-6) so that the minimum is finite. NETLAB's glmtrain stops at
// the first error increase ("Error has increased: terminating"), above the minimum; step_control
// = false reproduces that rule.
#include <catch2/catch.hpp>

#include <cmath>

#include "../../plugins/output-bfgs/bfgs.hpp"
#include "../../plugins/output-irls/irls.hpp"
#include "glm_test_support.hpp"
#include "radial/glm/training.hpp"
#include "radial/numerics/kmeans.hpp"
#include "radial/weight_penalty.hpp"

using radial::FitContext;
using radial::Link;
using radial::Matrix;
using radial::glm::Objective;
namespace rp = radial::plugins;

namespace {

class Decay : public radial::WeightPenalty {
 public:
  explicit Decay(double alpha) : alpha_(alpha) {}
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

// 20 k-means centres (seeded) and Gaussian variances `scale` times the mean cluster spread per
// dimension: narrow enough that the outputs saturate in places.
Matrix design(const radial::Dataset& data, double scale, unsigned seed) {
  std::mt19937_64 rng(seed);
  radial::KMeansOptions ko;
  ko.count = 20;
  const auto km = radial::kmeans(data.inputs, ko, rng);
  double spread = 0;
  for (double v : km.cluster_spread) spread += v;
  spread /= 20.0;
  Matrix widths = xt::zeros<double>({std::size_t(20), std::size_t(1)});
  for (auto& v : widths) v = scale * spread / double(data.features());
  return glm_test::gaussian_design(data.inputs, km.centres, widths);
}

struct Outcome {
  double plain, controlled, bfgs;
  bool plain_warned;
};

Outcome run(const radial::Dataset& data, Link link, const Matrix& phi) {
  const Decay decay(1e-6);
  const Matrix t = radial::targets_for(link, data);
  Outcome o{};
  for (const bool control : {false, true}) {
    Objective obj(phi, t, link, &decay);
    FitContext ctx(1);
    rp::IrlsOptions options;
    options.step_control = control;
    const Matrix w = rp::irls(obj, options, ctx);
    REQUIRE(radial::glm::all_finite(w));
    (control ? o.controlled : o.plain) = ctx.report.final_error;
    if (control) {
      CHECK(ctx.report.converged());
      CHECK(ctx.report.figures.at("step_halvings") > 0);
    } else {
      for (const auto& warning : ctx.report.warnings)
        if (warning.guard == "error-increased") o.plain_warned = true;
    }
  }
  Objective obj(phi, t, link, &decay);
  FitContext ctx(1);
  rp::bfgs(obj, rp::BfgsOptions{}, ctx);
  CHECK(ctx.report.converged());
  o.bfgs = ctx.report.final_error;
  return o;
}

}  // namespace

TEST_CASE("step control reaches the quasi-Newton minimum where plain Newton stops above it",
          "[glm][irls][step-control]") {
  SECTION("20 Gaussian centres on synth3, logistic") {
    const radial::Dataset data =
        glm_test::read_classes(glm_test::example_data("synth3_train.csv"), false);
    const Outcome o = run(data, Link::Logistic, design(data, 1.0, 1));
    CHECK(o.controlled == Approx(o.bfgs).epsilon(1e-4));
    CHECK(o.controlled <= o.bfgs * (1 + 1e-8));
    CHECK(o.plain_warned);
    CHECK(o.plain > o.bfgs * (1 + 1e-3));
  }
  SECTION("20 Gaussian centres on iris, softmax with the exact Hessian") {
    const radial::Dataset data = glm_test::read_classes(glm_test::example_data("iris.csv"), true);
    for (unsigned seed : {1u, 2u, 3u}) {
      INFO("k-means seed " << seed);
      const Outcome o = run(data, Link::Softmax, design(data, 4.0, seed));
      CHECK(o.controlled == Approx(o.bfgs).epsilon(1e-4));
      CHECK(o.plain_warned);
      CHECK(o.plain > o.bfgs * (1 + 1e-2));
    }
  }
}
