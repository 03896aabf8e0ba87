// weight-decay: penalty, gradient and Hessian against closed forms and finite differences, and
// the plugin as the host loads it.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>

#include "weight_decay.hpp"

using radial::Matrix;
using radial::plugins::WeightDecay;

namespace {

Matrix random_weights(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix w = xt::empty<double>({rows, cols});
  for (auto& v : w) v = normal(rng);
  return w;
}

// Central differences of the penalty (gradient) and of the gradient (Hessian), step h.
Matrix numeric_gradient(const radial::WeightPenalty& r, Matrix w, double h) {
  Matrix g = xt::zeros<double>(w.shape());
  for (std::size_t p = 0; p < w.size(); ++p) {
    const double saved = w.data()[p];
    w.data()[p] = saved + h;
    const double up = r.penalty(w);
    w.data()[p] = saved - h;
    const double down = r.penalty(w);
    w.data()[p] = saved;
    g.data()[p] = (up - down) / (2 * h);
  }
  return g;
}

Matrix numeric_hessian(const radial::WeightPenalty& r, Matrix w, double h) {
  const std::size_t n = w.size();
  Matrix hess = xt::zeros<double>({n, n});
  for (std::size_t q = 0; q < n; ++q) {
    const double saved = w.data()[q];
    Matrix up = xt::zeros<double>(w.shape()), down = xt::zeros<double>(w.shape());
    w.data()[q] = saved + h;
    r.add_gradient(w, up);
    w.data()[q] = saved - h;
    r.add_gradient(w, down);
    w.data()[q] = saved;
    for (std::size_t p = 0; p < n; ++p) hess(p, q) = (up.data()[p] - down.data()[p]) / (2 * h);
  }
  return hess;
}

void check_derivatives(const WeightDecay& decay, const Matrix& w) {
  Matrix g = xt::zeros<double>(w.shape());
  decay.add_gradient(w, g);
  const Matrix gn = numeric_gradient(decay, w, 1e-5);
  for (std::size_t p = 0; p < w.size(); ++p) CHECK(g.data()[p] == Approx(gn.data()[p]).margin(1e-8));

  Matrix h = xt::zeros<double>({w.size(), w.size()});
  decay.add_hessian(w, h);
  const Matrix hn = numeric_hessian(decay, w, 1e-4);
  for (std::size_t p = 0; p < w.size(); ++p)
    for (std::size_t q = 0; q < w.size(); ++q) CHECK(h(p, q) == Approx(hn(p, q)).margin(1e-8));
}

}  // namespace

TEST_CASE("weight decay penalty in closed form", "[weight-decay]") {
  // W = [[1, 2], [3, 4], [5, 6]] with the bias row [5, 6]: alpha/2 (1 + 4 + 9 + 16) = 15 alpha.
  const Matrix w = {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}};
  CHECK(WeightDecay({0.5, false}).penalty(w) == Approx(7.5));
  CHECK(WeightDecay({0.5, true}).penalty(w) == Approx(0.25 * (30 + 61)));
  CHECK(WeightDecay({0.0, true}).penalty(w) == 0.0);

  Matrix g = xt::ones<double>(w.shape());  // add_gradient adds
  WeightDecay({2.0, false}).add_gradient(w, g);
  CHECK(g(0, 0) == 3.0);
  CHECK(g(1, 1) == 9.0);
  CHECK(g(2, 0) == 1.0);  // bias row untouched
  CHECK(g(2, 1) == 1.0);
}

TEST_CASE("weight decay gradient and Hessian equal finite differences", "[weight-decay]") {
  const Matrix w = random_weights(6, 3, 42);
  SECTION("bias excluded") { check_derivatives(WeightDecay({0.37, false}), w); }
  SECTION("bias included") { check_derivatives(WeightDecay({1.9, true}), w); }
  SECTION("one output column") { check_derivatives(WeightDecay({0.8, false}), random_weights(5, 1, 7)); }
  SECTION("Hessian layout: row-major flattening p = i*K + k, bias row last") {
    Matrix h = xt::zeros<double>({std::size_t(18), std::size_t(18)});
    WeightDecay({0.37, false}).add_hessian(w, h);
    for (std::size_t p = 0; p < 18; ++p) CHECK(h(p, p) == (p < 15 ? 0.37 : 0.0));
  }
}

TEST_CASE("weight decay refuses arrays of the wrong shape", "[weight-decay]") {
  const Matrix w = random_weights(4, 2, 1);
  Matrix g = xt::zeros<double>({std::size_t(4), std::size_t(3)});
  CHECK_THROWS_AS(WeightDecay({1.0, false}).add_gradient(w, g), radial::ShapeError);
  Matrix h = xt::zeros<double>({std::size_t(4), std::size_t(4)});
  CHECK_THROWS_WITH(WeightDecay({1.0, false}).add_hessian(w, h), Catch::Contains("need 8 x 8"));
}

TEST_CASE("weight-decay plugin loads, declares its parameters and builds the prior",
          "[weight-decay][plugin]") {
  radial::Registry registry;
  registry.load_file(radial::testing::plugin_dir() / "libradial-weight-penalty-weight-decay.so");
  const auto& info = registry.require(radial::Slot::WeightPenalty, "weight-decay");
  REQUIRE(radial::find_param(info.params, "alpha") != nullptr);
  CHECK(std::get<double>(radial::find_param(info.params, "alpha")->default_value) == 0.01);
  CHECK(std::get<bool>(radial::find_param(info.params, "include_bias")->default_value) == false);
  CHECK_THROWS_AS(radial::validate_params(info.params, {{"alpha", -1.0}}, "plugin weight-decay"),
                  radial::ParameterError);

  const auto params = radial::validate_params(info.params, {{"alpha", 0.5}}, "plugin weight-decay");
  const auto decay = registry.make_weight_penalty("weight-decay", params);
  const Matrix w = {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}};
  CHECK(decay->penalty(w) == Approx(7.5));
  CHECK(registry.find(radial::Slot::KernelPrior, "weight-decay") == nullptr);
}

TEST_CASE("weight-decay passes the plugin conformance kit", "[weight-decay][conformance]") {
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-weight-penalty-weight-decay.so");
  radial::conformance::check_plugin(fresh, "weight-decay");
}
