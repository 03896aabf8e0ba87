// rkhs: the penalty against a closed form and finite differences, its errors, the plugin as the
// host loads it, and -- through the trainer -- least squares under it against kernel ridge
// regression's closed form, computed here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/pipeline/pipeline.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>
#include <radial/testing/registry.hpp>
#include <radial/training/trainer.hpp>

#include "rkhs_norm.hpp"

using radial::Matrix;
using radial::plugins::RkhsNorm;
using radial::plugins::RkhsOptions;

namespace {

using UnitGaussian = radial::conformance::detail::UnitGaussian;  // phi = exp(-r^2 / 2)

// phi = r^2: K_MM has a zero diagonal and positive entries off it, so it is indefinite.
class SquaredDistance final : public radial::EuclideanBasis {
 public:
  void map(Matrix&) const override {}
};

Matrix random_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  Matrix w = xt::empty<double>({rows, cols});
  for (auto& v : w) v = normal(rng);
  return w;
}

radial::Centres centres_at(const Matrix& means) {
  radial::Centres c;
  c.means = means;
  return c;
}

RkhsNorm prepared(RkhsOptions options, const radial::Centres& centres) {
  RkhsNorm r(options);
  r.prepare(centres, UnitGaussian());
  return r;
}

// Central differences of the penalty (gradient) and of the gradient (Hessian).
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

void check_derivatives(const RkhsNorm& r, const Matrix& w) {
  Matrix g = xt::zeros<double>(w.shape());
  r.add_gradient(w, g);
  const Matrix gn = numeric_gradient(r, w, 1e-5);
  for (std::size_t p = 0; p < w.size(); ++p)
    CHECK(g.data()[p] == Approx(gn.data()[p]).margin(1e-8));
  Matrix h = xt::zeros<double>({w.size(), w.size()});
  r.add_hessian(w, h);
  const Matrix hn = numeric_hessian(r, w, 1e-4);
  for (std::size_t p = 0; p < w.size(); ++p)
    for (std::size_t q = 0; q < w.size(); ++q) CHECK(h(p, q) == Approx(hn(p, q)).margin(1e-8));
}

// Solves A x = b (A square) by Gaussian elimination with partial pivoting: the reference
// is independent of the framework's and LAPACK's solvers.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (std::size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (std::size_t c = n; c-- > 0;) {
    double s = b[c];
    for (std::size_t k = c + 1; k < n; ++k) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return x;
}

const radial::Registry& plugins() {
  return radial::testing::plugin_registry({"weight-penalty-rkhs", "output-least-squares",
                                           "basis-gaussian", "centres-subset"});
}

// 1-D sine data (100 rows, x in [0, 1]) with a Gaussian basis of width `sigma`, unstandardised.
radial::Pipeline sine_pipeline(double sigma, double alpha, bool include_bias,
                               const std::string& centres, const std::string& solver) {
  const std::string text = "seed = 3\n[data]\ntrain = \"data/sine.train.csv\"\n"
                           "target = \"y\"\ntask = \"regression\"\nstandardize = false\n"
                           "[evaluate]\nfolds = 0\n"
                           "[basis]\nplugin = \"gaussian\"\nwidth = " +
                           std::to_string(sigma) + "\n[centres]\nplugin = \"subset\"\n" + centres +
                           "\n[output]\nplugin = \"least-squares\"\nsolver = \"" + solver +
                           "\"\ntolerance = 1e-13\nmax_iterations = 500\n"
                           "[weight-penalty]\nplugin = \"rkhs\"\nalpha = " +
                           std::to_string(alpha) +
                           "\ninclude_bias = " + (include_bias ? "true" : "false") + "\n";
  return radial::parse_pipeline(text, radial::testing::source_dir() / "docs/examples/rkhs.toml",
                                plugins());
}

double relative_difference(const Matrix& a, const Matrix& b) {
  REQUIRE(a.shape() == b.shape());
  double diff = 0, scale = 0;
  for (std::size_t p = 0; p < a.size(); ++p) {
    diff = std::max(diff, std::fabs(a.data()[p] - b.data()[p]));
    scale = std::max(scale, std::fabs(b.data()[p]));
  }
  return diff / scale;
}

}  // namespace

TEST_CASE("rkhs penalty in closed form", "[rkhs]") {
  // Centres 0 and 1 on a line, phi = exp(-r^2/2): K_MM = [[1, e], [e, 1]], e = exp(-1/2).
  // W = [[1, 2], [3, 4], [5, 6]] (bias row [5, 6]): w_1 = (1, 3), w_2 = (2, 4), so
  // sum_k w_k^T K w_k = (10 + 6e) + (20 + 16e) = 30 + 22e, and the bias adds 25 + 36.
  const radial::Centres c = centres_at(Matrix{{0.0}, {1.0}});
  const double e = std::exp(-0.5);
  const Matrix w = {{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}};
  const RkhsNorm without = prepared({0.5, false}, c), with = prepared({0.5, true}, c);
  CHECK(without.kernel()(0, 1) == Approx(e).epsilon(1e-15));
  CHECK(without.penalty(w) == Approx(0.25 * (30 + 22 * e)).epsilon(1e-14));
  CHECK(with.penalty(w) == Approx(0.25 * (30 + 22 * e + 61)).epsilon(1e-14));
  CHECK(prepared({0.0, true}, c).penalty(w) == 0.0);

  Matrix g = xt::ones<double>(w.shape());  // add_gradient adds: 1 + alpha K W
  prepared({2.0, false}, c).add_gradient(w, g);
  CHECK(g(0, 0) == Approx(1 + 2 * (1 + 3 * e)).epsilon(1e-14));
  CHECK(g(1, 1) == Approx(1 + 2 * (2 * e + 4)).epsilon(1e-14));
  CHECK(g(2, 0) == 1.0);  // bias row untouched
  CHECK(g(2, 1) == 1.0);
}

TEST_CASE("rkhs gradient and Hessian equal finite differences", "[rkhs]") {
  const radial::Centres c = centres_at(random_matrix(5, 2, 11));
  const Matrix w = random_matrix(6, 3, 42);
  SECTION("bias excluded") { check_derivatives(prepared({0.37, false}, c), w); }
  SECTION("bias included") { check_derivatives(prepared({1.9, true}, c), w); }
  SECTION("one output column") {
    check_derivatives(prepared({0.8, false}, c), random_matrix(6, 1, 7));
  }
  SECTION("Hessian layout: p = i*K + k, outputs uncoupled, alpha K_MM on each") {
    const RkhsNorm r = prepared({0.37, true}, c);
    Matrix h = xt::zeros<double>({std::size_t(18), std::size_t(18)});
    r.add_hessian(w, h);
    // K_MM by hand: exp(-||c_i - c_j||^2 / 2), the bias (row 5) 1 on the diagonal alone.
    const auto kernel = [&](std::size_t i, std::size_t j) {
      if (i == 5 || j == 5) return i == j ? 1.0 : 0.0;
      const double dx = c.means(i, 0) - c.means(j, 0), dy = c.means(i, 1) - c.means(j, 1);
      return std::exp(-0.5 * (dx * dx + dy * dy));
    };
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 6; ++j)
        for (std::size_t k = 0; k < 3; ++k)
          for (std::size_t l = 0; l < 3; ++l)
            CHECK(h(i * 3 + k, j * 3 + l) ==
                  Approx(k == l ? 0.37 * kernel(i, j) : 0.0).margin(1e-15));
    // The penalty is the quadratic form of its Hessian: 1/2 w^T H w.
    double quadratic = 0;
    for (std::size_t p = 0; p < 18; ++p)
      for (std::size_t q = 0; q < 18; ++q) quadratic += w.data()[p] * h(p, q) * w.data()[q];
    CHECK(r.penalty(w) == Approx(0.5 * quadratic).epsilon(1e-13));
  }
}

TEST_CASE("rkhs refuses use before prepare, other sizes and indefinite kernels", "[rkhs]") {
  const Matrix w = random_matrix(4, 2, 1);
  Matrix g = xt::zeros<double>(w.shape());
  RkhsNorm fresh({1.0, false});
  CHECK_THROWS_WITH(fresh.penalty(w), Catch::Contains("before prepare(centres, basis)"));
  CHECK_THROWS_AS(fresh.add_gradient(w, g), radial::Error);

  const RkhsNorm r = prepared({1.0, false}, centres_at(random_matrix(3, 2, 5)));
  CHECK_THROWS_AS(r.penalty(random_matrix(5, 2, 1)), radial::ShapeError);
  CHECK_THROWS_WITH(r.penalty(random_matrix(5, 2, 1)),
                    Catch::Contains("prepared on 3 centres (M + 1 = 4 rows"));
  Matrix wrong = xt::zeros<double>({std::size_t(4), std::size_t(3)});
  CHECK_THROWS_AS(r.add_gradient(w, wrong), radial::ShapeError);
  Matrix h = xt::zeros<double>({std::size_t(4), std::size_t(4)});
  CHECK_THROWS_WITH(r.add_hessian(w, h), Catch::Contains("need 8 x 8"));

  RkhsNorm indefinite({1.0, false});
  CHECK_THROWS_AS(indefinite.prepare(centres_at(random_matrix(3, 2, 5)), SquaredDistance()),
                  radial::InputError);
  CHECK_FALSE(indefinite.prepared());
  const radial::Centres none = centres_at(xt::zeros<double>({std::size_t(0), std::size_t(2)}));
  CHECK_THROWS_AS(RkhsNorm({1.0, false}).prepare(none, UnitGaussian()), radial::InputError);
}

TEST_CASE("rkhs plugin loads, declares its parameters and passes the conformance kit",
          "[rkhs][plugin][conformance]") {
  const auto& info = plugins().require(radial::Slot::WeightPenalty, "rkhs");
  CHECK(std::get<double>(radial::find_param(info.params, "alpha")->default_value) == 0.01);
  CHECK(std::get<bool>(radial::find_param(info.params, "include_bias")->default_value) == false);
  CHECK_THROWS_AS(radial::validate_params(info.params, {{"alpha", -1.0}}, "plugin rkhs"),
                  radial::ParameterError);
  // "choose" is the trainer's closed-form selection (tests/training/test_defaults.cpp).
  CHECK_NOTHROW(
      radial::validate_params(info.params, {{"alpha", std::string("choose")}}, "plugin rkhs"));
  CHECK_THROWS_AS(
      radial::validate_params(info.params, {{"alpha", std::string("pick")}}, "plugin rkhs"),
      radial::ParameterError);
  radial::Registry fresh;
  fresh.load_file(radial::testing::plugin_dir() / "libradial-weight-penalty-rkhs.so");
  radial::conformance::check_plugin(fresh, "rkhs");
}

TEST_CASE("least squares under the rkhs penalty: every solver the same weights",
          "[rkhs][least-squares]") {
  // 20 of the 100 sine rows as centres, sigma 0.02: K_MM well conditioned, so the weights
  // themselves are determined (the penalty does not bound weights along K_MM's near-null
  // vectors, unlike weight decay: at sigma 0.1 only the fitted function is) and the solvers
  // differ in method only.
  const std::string twenty = "count = 20";
  const auto svd = radial::train(sine_pipeline(0.02, 0.01, false, twenty, "svd"), plugins());
  REQUIRE(svd.model.centres.count() == 20);
  CHECK_FALSE(svd.report.selection);  // the width is given: nothing chosen
  for (const char* solver : {"refined-normal-equations", "cg", "normal-equations"}) {
    INFO(solver);
    const auto other = radial::train(sine_pipeline(0.02, 0.01, false, twenty, solver), plugins());
    CHECK(relative_difference(other.model.weights, svd.model.weights) < 1e-8);
  }
}

TEST_CASE("least squares under the rkhs penalty with every row a centre is kernel ridge "
          "regression",
          "[rkhs][least-squares][krr]") {
  // min_beta,b 1/2 ||y - K beta - b 1||^2 + alpha/2 beta^T K beta  (K = K_NN, Gaussian):
  //  - bias unpenalised: (K + alpha I) beta = y - b 1 and 1^T beta = 0, so with A = K + alpha I
  //    b = 1^T A^{-1} y / 1^T A^{-1} 1 and beta = A^{-1} (y - b 1): kernel ridge regression
  //    with an unpenalised constant (lambda = alpha; FALKON's lambda = alpha / N);
  //  - include_bias (alpha/2 b^2 too): b = 1^T beta and (K + 1 1^T + alpha I) beta = y, kernel
  //    ridge regression beta = (K' + lambda I)^{-1} y with the kernel K' = K + 1.
  // sigma = 0.005 keeps K well conditioned (the closest rows, 7.8e-5 apart, give an
  // eigenvalue ~1e-4), so the weights themselves are compared; at sigma = 0.1 (10 rows per
  // width) K is numerically singular and only the fitted function is determined, so the fitted
  // values are compared: to 1e-8 by the direct solvers, to 1e-6 by cg, whose stop on the
  // normal equations' residual bounds the fitted values only through that system's condition.
  const radial::Dataset data = radial::read_csv(
      radial::testing::source_dir() / "docs/examples/data/sine.train.csv",
      [] {
        radial::DataOptions o;
        o.target = "y";
        o.task = radial::Task::Regression;
        return o;
      }());
  const std::size_t n = data.rows();
  const double alpha = 0.05;
  for (const double sigma : {0.005, 0.1}) {
    for (const bool include_bias : {false, true}) {
      for (const char* solver : {"svd", "refined-normal-equations", "cg"}) {
        INFO("sigma " << sigma << ", include_bias " << include_bias << ", solver " << solver);
        const auto fit = radial::train(
            sine_pipeline(sigma, alpha, include_bias, "all = true", solver), plugins());
        const radial::Model& model = fit.model;
        REQUIRE(model.centres.count() == n);
        // Centre j is training row row_of[j] (subset may reorder the rows).
        std::vector<std::size_t> row_of(n);
        for (std::size_t j = 0; j < n; ++j) {
          const auto it = std::find_if(std::begin(data.inputs), std::end(data.inputs),
                                       [&](double x) { return x == model.centres.means(j, 0); });
          REQUIRE(it != std::end(data.inputs));
          row_of[j] = std::size_t(it - std::begin(data.inputs));
        }
        // K between centres (in the model's order) and y in that order.
        std::vector<std::vector<double>> a(n, std::vector<double>(n));
        std::vector<double> y(n), ones(n, 1.0);
        for (std::size_t i = 0; i < n; ++i) {
          y[i] = data.values(row_of[i]);
          for (std::size_t j = 0; j < n; ++j) {
            const double d = model.centres.means(i, 0) - model.centres.means(j, 0);
            a[i][j] = std::exp(-d * d / (2 * sigma * sigma)) + (include_bias ? 1.0 : 0.0) +
                      (i == j ? alpha : 0.0);
          }
        }
        std::vector<double> beta;
        double b = 0;
        if (include_bias) {
          beta = solve(a, y);
          for (const double v : beta) b += v;
        } else {
          const std::vector<double> ay = solve(a, y), a1 = solve(a, ones);
          double num = 0, den = 0;
          for (std::size_t i = 0; i < n; ++i) num += ay[i], den += a1[i];
          b = num / den;
          for (std::size_t i = 0; i < n; ++i) y[i] -= b;
          beta = solve(a, y);
        }
        // The fitted values f = K beta + b at the training rows.
        const auto fitted = [&](const Matrix& w) {
          Matrix f = xt::empty<double>({n, std::size_t(1)});
          for (std::size_t i = 0; i < n; ++i) {
            double s = w(n, 0);
            for (std::size_t j = 0; j < n; ++j) {
              const double d = model.centres.means(i, 0) - model.centres.means(j, 0);
              s += std::exp(-d * d / (2 * sigma * sigma)) * w(j, 0);
            }
            f(i, 0) = s;
          }
          return f;
        };
        Matrix expected = xt::empty<double>({n + 1, std::size_t(1)});
        for (std::size_t i = 0; i < n; ++i) expected(i, 0) = beta[i];
        expected(n, 0) = b;
        const bool singular = sigma > 0.05;
        const double tolerance = singular && std::string(solver) == "cg" ? 1e-6 : 1e-8;
        CHECK(relative_difference(fitted(model.weights), fitted(expected)) < tolerance);
        if (!singular) CHECK(relative_difference(model.weights, expected) < 1e-8);
      }
    }
  }
}
