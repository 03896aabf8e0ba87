// The GLM objective against closed forms and finite differences, for every link, with and
// without a weight penalty.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "radial/core/errors.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/network/weight_penalty.hpp"

using radial::Link;
using radial::Matrix;
using radial::glm::HessianKind;
using radial::glm::Objective;

namespace {

// alpha/2 ||W||^2 over the non-bias rows: an independent test double of the interface.
class TestDecay : public radial::WeightPenalty {
 public:
  explicit TestDecay(double alpha) : alpha_(alpha) {}
  double penalty(const Matrix& w) const override {
    double s = 0;
    for (std::size_t i = 0; i + 1 < w.shape(0); ++i)
      for (std::size_t k = 0; k < w.shape(1); ++k) s += w(i, k) * w(i, k);
    return 0.5 * alpha_ * s;
  }
  void add_gradient(const Matrix& w, Matrix& g) const override {
    for (std::size_t i = 0; i + 1 < w.shape(0); ++i)
      for (std::size_t k = 0; k < w.shape(1); ++k) g(i, k) += alpha_ * w(i, k);
  }
  void add_hessian(const Matrix& w, Matrix& h) const override {
    for (std::size_t p = 0; p < (w.shape(0) - 1) * w.shape(1); ++p) h(p, p) += alpha_;
  }

 private:
  double alpha_;
};

struct Case {
  Matrix phi, targets, weights;
};

Case make_case(Link link, std::size_t n, std::size_t c, std::size_t k, unsigned seed,
               double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Case out;
  out.phi = xt::zeros<double>({n, c});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j + 1 < c; ++j) out.phi(i, j) = normal(rng);
    out.phi(i, c - 1) = 1.0;  // bias column
  }
  out.targets = xt::zeros<double>({n, k});
  for (std::size_t i = 0; i < n; ++i) {
    if (link == Link::Identity)
      for (std::size_t j = 0; j < k; ++j) out.targets(i, j) = normal(rng);
    else if (link == Link::Logistic)
      out.targets(i, 0) = (rng() % 2) ? 1.0 : 0.0;
    else
      out.targets(i, rng() % k) = 1.0;
  }
  out.weights = xt::zeros<double>({c, k});
  for (auto& v : out.weights) v = scale * normal(rng);
  return out;
}

// The error written out naively, with the outputs computed by the framework's apply_link.
double naive_error(Link link, const Case& cs) {
  Matrix a = xt::zeros<double>({cs.phi.shape(0), cs.weights.shape(1)});
  for (std::size_t n = 0; n < a.shape(0); ++n)
    for (std::size_t k = 0; k < a.shape(1); ++k)
      for (std::size_t j = 0; j < cs.phi.shape(1); ++j) a(n, k) += cs.phi(n, j) * cs.weights(j, k);
  double e = 0;
  for (std::size_t n = 0; n < a.shape(0); ++n) {
    if (link == Link::Identity) {
      for (std::size_t k = 0; k < a.shape(1); ++k)
        e += 0.5 * std::pow(a(n, k) - cs.targets(n, k), 2);
    } else if (link == Link::Logistic) {
      const double y = 1 / (1 + std::exp(-a(n, 0))), t = cs.targets(n, 0);
      e -= t * std::log(y) + (1 - t) * std::log(1 - y);
    } else {
      double s = 0;
      for (std::size_t k = 0; k < a.shape(1); ++k) s += std::exp(a(n, k));
      for (std::size_t k = 0; k < a.shape(1); ++k)
        e -= cs.targets(n, k) * std::log(std::exp(a(n, k)) / s);
    }
  }
  return e;
}

void check_derivatives(Link link, std::size_t k, const radial::WeightPenalty* penalty) {
  const Case cs = make_case(link, 60, 5, k, 7 + k);
  Objective obj(cs.phi, cs.targets, link, penalty);
  Matrix g, h, g2, hs;
  const double e = obj.hessian(cs.weights, HessianKind::Exact, g, h);
  const double pen = penalty ? penalty->penalty(cs.weights) : 0.0;
  REQUIRE(e == Approx(naive_error(link, cs) + pen).epsilon(1e-12));
  REQUIRE(obj.value(cs.weights) == Approx(e).epsilon(1e-14));
  obj.gradient(cs.weights, g2);
  const std::size_t p = obj.size();
  const double step = 1e-5;
  for (std::size_t i = 0; i < p; ++i) {
    Matrix wp = cs.weights, wm = cs.weights;
    wp.data()[i] += step;
    wm.data()[i] -= step;
    // Gradient by central differences of the value.
    const double fd = (obj.value(wp) - obj.value(wm)) / (2 * step);
    CHECK(g.data()[i] == Approx(fd).epsilon(1e-6).margin(1e-7));
    CHECK(g2.data()[i] == Approx(g.data()[i]).epsilon(1e-14).margin(1e-14));
    // Hessian column by central differences of the gradient.
    Matrix gp, gm;
    obj.gradient(wp, gp);
    obj.gradient(wm, gm);
    for (std::size_t j = 0; j < p; ++j) {
      const double fdh = (gp.data()[j] - gm.data()[j]) / (2 * step);
      CHECK(h(j, i) == Approx(fdh).epsilon(1e-6).margin(1e-6));
    }
  }
  // The simplified Hessian keeps exactly the blocks k = l of the exact one.
  obj.hessian(cs.weights, HessianKind::Simplified, g2, hs);
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      const bool same_output = (i % k) == (j % k);
      CHECK(hs(i, j) == Approx(same_output ? h(i, j) : 0.0).margin(1e-13));
    }
}

}  // namespace

TEST_CASE("objective value, gradient and Hessians match closed forms and finite differences",
          "[glm][objective]") {
  TestDecay decay(0.3);
  for (const radial::WeightPenalty* penalty : {static_cast<const radial::WeightPenalty*>(nullptr),
                                             static_cast<const radial::WeightPenalty*>(&decay)}) {
    SECTION(std::string("identity ") + (penalty ? "penalised" : "plain")) {
      check_derivatives(Link::Identity, 2, penalty);
    }
    SECTION(std::string("logistic ") + (penalty ? "penalised" : "plain")) {
      check_derivatives(Link::Logistic, 1, penalty);
    }
    SECTION(std::string("softmax ") + (penalty ? "penalised" : "plain")) {
      check_derivatives(Link::Softmax, 3, penalty);
    }
    // Both sides of the thin products' limit (thin_products.hpp): dgemv per output up to 3
    // outputs (softmax 3 above), dgemm past it.
    SECTION(std::string("identity, 4 outputs ") + (penalty ? "penalised" : "plain")) {
      check_derivatives(Link::Identity, 4, penalty);
    }
    SECTION(std::string("softmax, 6 outputs ") + (penalty ? "penalised" : "plain")) {
      check_derivatives(Link::Softmax, 6, penalty);
    }
  }
}

TEST_CASE("objective is finite for huge activations and uses log-sum-exp", "[glm][objective]") {
  for (Link link : {Link::Logistic, Link::Softmax}) {
    const std::size_t k = link == Link::Logistic ? 1 : 3;
    Case cs = make_case(link, 30, 4, k, 11, 800.0);  // activations of order 1e3: e^a overflows
    Objective obj(cs.phi, cs.targets, link);
    Matrix g, h;
    const double e = obj.hessian(cs.weights, HessianKind::Exact, g, h);
    REQUIRE(std::isfinite(e));
    REQUIRE(radial::glm::all_finite(g));
    REQUIRE(radial::glm::all_finite(h));
    // Closed form with the maximum taken out: logistic ln(1+e^a) - t a, softmax lse - t.a.
    double expected = 0;
    for (std::size_t n = 0; n < 30; ++n) {
      std::vector<double> a(k, 0.0);
      for (std::size_t j = 0; j < k; ++j)
        for (std::size_t i = 0; i < 4; ++i) a[j] += cs.phi(n, i) * cs.weights(i, j);
      if (link == Link::Logistic) {
        expected += std::max(a[0], 0.0) + std::log1p(std::exp(-std::fabs(a[0]))) -
                    cs.targets(n, 0) * a[0];
      } else {
        const double m = *std::max_element(a.begin(), a.end());
        double s = 0;
        for (double v : a) s += std::exp(v - m);
        for (std::size_t j = 0; j < k; ++j) expected += cs.targets(n, j) * (m + std::log(s) - a[j]);
      }
    }
    CHECK(e == Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("objective over many row blocks equals the closed form", "[glm][objective]") {
  // 2500 rows span three blocks of the in-memory path.
  const Case cs = make_case(Link::Softmax, 2500, 6, 4, 3);
  Objective obj(cs.phi, cs.targets, Link::Softmax);
  CHECK(obj.value(cs.weights) == Approx(naive_error(Link::Softmax, cs)).epsilon(1e-12));
  const Matrix y = obj.outputs_at(cs.weights);
  for (std::size_t n = 0; n < 2500; n += 499) {
    double s = 0;
    for (std::size_t k = 0; k < 4; ++k) s += y(n, k);
    CHECK(s == Approx(1.0).epsilon(1e-14));
  }
}

TEST_CASE("objective counts evaluations and flops", "[glm][objective]") {
  const Case cs = make_case(Link::Logistic, 100, 11, 1, 5);
  Objective obj(cs.phi, cs.targets, Link::Logistic);
  Matrix g, h;
  obj.value(cs.weights);
  const double value_flops = obj.counters().flops;
  // A = Phi W (2 N C) plus the logistic error (10 N).
  CHECK(value_flops == Approx(2.0 * 100 * 11 + 10.0 * 100));
  obj.gradient(cs.weights, g);
  obj.hessian(cs.weights, HessianKind::Exact, g, h);
  CHECK(obj.counters().function_evaluations == 3);
  CHECK(obj.counters().gradient_evaluations == 2);
  CHECK(obj.counters().hessian_evaluations == 1);
  // Gradient pass adds N + 2 N C; Hessian pass adds 3N + N C + N C (C + 1) (weights, scaling,
  // symmetric rank-k update).
  const double gradient_flops = value_flops + 100 + 2.0 * 100 * 11;
  const double hessian_flops = gradient_flops + 3.0 * 100 + 100.0 * 11 + 100.0 * 11 * 12;
  CHECK(obj.counters().flops == Approx(value_flops + gradient_flops + hessian_flops));
}

TEST_CASE("objective refuses mismatched links and shapes", "[glm][objective]") {
  const Case cs = make_case(Link::Softmax, 10, 3, 3, 1);
  CHECK_THROWS_AS(Objective(cs.phi, cs.targets, Link::Logistic), radial::InputError);
  CHECK_THROWS_AS(Objective(cs.phi, cs.targets, Link::Bayes), radial::InputError);
  Matrix short_targets = xt::zeros<double>({std::size_t(9), std::size_t(3)});
  CHECK_THROWS_AS(Objective(cs.phi, short_targets, Link::Softmax), radial::ShapeError);
  Objective obj(cs.phi, cs.targets, Link::Softmax);
  Matrix wrong = xt::zeros<double>({std::size_t(2), std::size_t(3)});
  CHECK_THROWS_AS(obj.value(wrong), radial::ShapeError);
}

TEST_CASE("targets_for codes classes for each link", "[glm][targets]") {
  radial::Dataset data;
  data.inputs = xt::zeros<double>({std::size_t(4), std::size_t(1)});
  data.classes = radial::Labels({0, 1, 1, 0});
  data.num_classes = 2;
  const Matrix logistic = radial::targets_for(Link::Logistic, data);
  REQUIRE(logistic.shape(1) == 1);
  CHECK(logistic(1, 0) == 1.0);
  CHECK(logistic(3, 0) == 0.0);
  const Matrix soft = radial::targets_for(Link::Softmax, data);
  REQUIRE(soft.shape(1) == 2);
  CHECK(soft(0, 0) == 1.0);
  CHECK(soft(2, 1) == 1.0);
  data.num_classes = 3;
  data.classes = radial::Labels({0, 1, 2, 0});
  CHECK_THROWS_AS(radial::targets_for(Link::Logistic, data), radial::InputError);
  CHECK(radial::glm::resolve_link("auto", data, "irls") == Link::Softmax);
  CHECK_THROWS_AS(radial::glm::resolve_link("logistic", data, "irls"), radial::ParameterError);
  data.task = radial::Task::Regression;
  data.values = radial::Vector({1.0, 2.0, 3.0, 4.0});
  CHECK(radial::glm::resolve_link("auto", data, "irls") == Link::Identity);
  CHECK(radial::targets_for(Link::Identity, data)(2, 0) == 3.0);
}
