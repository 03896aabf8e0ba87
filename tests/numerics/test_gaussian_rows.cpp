// The fused Gaussian activations (GaussianRows) against the path they stand in for: squared
// distances by SquaredDistances, then std::exp(-r2 / 2) value by value. Every kernel this CPU
// runs; Euclidean and spherical distances; M and row counts off the tile sizes; strided output
// whose other columns stay untouched; far rows whose activations are subnormal or 0.
// Tolerance: the two sum x.c in different orders, so -r2/2 differs by a few ulp of the terms
// (||x||^2 + ||c||^2) / sigma^2, and phi by that much relative.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <radial/core/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/numerics/gaussian_rows.hpp>
#include <xtensor/xbuilder.hpp>

using namespace radial;

namespace {

constexpr double eps = std::numeric_limits<double>::epsilon();

Matrix random_matrix(std::size_t rows, std::size_t cols, double scale, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, scale);
  Matrix m = Matrix::from_shape({rows, cols});
  for (double& v : m) v = normal(rng);
  return m;
}

// Each phi against exp(-r2/2) from SquaredDistances, with an error bound from the terms' size.
void check(const Centres& centres, Metric metric, const Matrix& x, const char* kernel) {
  const std::size_t n = x.shape(0), m = centres.count(), d = centres.dim();
  const GaussianRows fused(centres, metric, kernel);
  const std::size_t stride = m + 3;
  std::vector<double> out(n * stride, -7.0);
  fused.compute(x.data(), n, out.data(), stride);
  Matrix r2;
  SquaredDistances(centres, metric).compute(x, r2);
  for (std::size_t i = 0; i < n; ++i) {
    double xn = 0;
    for (std::size_t k = 0; k < d; ++k) xn += x(i, k) * x(i, k);
    for (std::size_t j = 0; j < m; ++j) {
      double cn = 0;
      for (std::size_t k = 0; k < d; ++k) cn += centres.means(j, k) * centres.means(j, k);
      const bool spherical = metric == Metric::Shape && centres.shape == Shape::Spherical;
      const double w = spherical ? 1.0 / centres.variances(j) : 1.0;
      const double want = std::exp(-0.5 * r2(i, j));
      // Rounding of the identity's terms, as an error in -r2/2, then relative in phi.
      const double arg_error = 8 * eps * (xn + cn + 1) * w * double(d + 2) + 4 * eps;
      const double bound = want * (std::expm1(arg_error) + 4 * eps) +
                           std::numeric_limits<double>::denorm_min() * 2;
      INFO(kernel << " row " << i << " centre " << j << " got " << out[i * stride + j]
                  << " want " << want);
      REQUIRE(std::fabs(out[i * stride + j] - want) <= bound);
    }
    for (std::size_t j = m; j < stride; ++j) REQUIRE(out[i * stride + j] == -7.0);
  }
}

// Single precision against exp(-r2/2) in double, with the bound gaussian_rows.hpp states.
void check_single(const Centres& centres, Metric metric, const Matrix& x, const char* kernel) {
  const std::size_t n = x.shape(0), m = centres.count(), d = centres.dim();
  const GaussianRows fused(centres, metric, kernel, GaussianRows::Precision::Single);
  REQUIRE(fused.single_precision());
  const std::size_t stride = m + 1;
  std::vector<double> out(n * stride, -7.0);
  fused.compute(x.data(), n, out.data(), stride);
  Matrix r2;
  SquaredDistances(centres, metric).compute(x, r2);
  std::vector<double> g(d, 0.0);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k) g[k] += centres.means(j, k) / double(m);
  const bool spherical = metric == Metric::Shape && centres.shape == Shape::Spherical;
  for (std::size_t i = 0; i < n; ++i) {
    double xn = 0;
    for (std::size_t k = 0; k < d; ++k) xn += (x(i, k) - g[k]) * (x(i, k) - g[k]);
    for (std::size_t j = 0; j < m; ++j) {
      double cn = 0;
      for (std::size_t k = 0; k < d; ++k)
        cn += (centres.means(j, k) - g[k]) * (centres.means(j, k) - g[k]);
      const double w = spherical ? 1.0 / centres.variances(j) : 1.0;
      const double want = std::exp(-0.5 * r2(i, j));
      const double arg_error = double(d + 8) * 6e-8 * (1 + (xn + cn) * w);
      const double bound = want * std::expm1(arg_error) + 2e-38;
      INFO(kernel << " single, row " << i << " centre " << j << " got " << out[i * stride + j]
                  << " want " << want);
      REQUIRE(std::fabs(out[i * stride + j] - want) <= bound);
    }
    REQUIRE(out[i * stride + m] == -7.0);
  }
}

}  // namespace

TEST_CASE("fused Gaussian activations equal exp(-r2/2) of the squared distances",
          "[gaussian-rows]") {
  const auto kernels = GaussianRows::kernels();
  if (kernels.empty()) {
    // No fused kernel on this CPU (or RADIAL_PORTABLE_KERNELS is set): none may be offered.
    REQUIRE(GaussianRows::kernel() == nullptr);
    return;
  }
  REQUIRE(GaussianRows::kernel() == std::string(kernels.front()));
  std::mt19937_64 rng(11);
  for (const char* kernel : kernels) {
    for (std::size_t m : {1, 7, 16, 17, 40, 300}) {
      for (std::size_t d : {1, 3, 18}) {
        Centres centres;
        centres.means = random_matrix(m, d, 1.0, rng);
        const Matrix x = random_matrix(9, d, 1.2, rng);
        check(centres, Metric::Euclidean, x, kernel);
        centres.shape = Shape::Spherical;
        centres.variances = Vector::from_shape({m});
        std::uniform_real_distribution<double> var(0.05, 4.0);
        for (double& v : centres.variances) v = var(rng);
        check(centres, Metric::Shape, x, kernel);
        check_single(centres, Metric::Shape, x, kernel);
        // The first rows far out: activations in the subnormals and at 0.
        Matrix far = x;
        for (std::size_t k = 0; k < d; ++k) {
          far(0, k) += 36.0 / std::sqrt(double(d));  // r2 ~ 1300 / sigma^2: 0 or subnormal
          far(1, k) += 37.6 / std::sqrt(double(d));  // r2 ~ 1414: exp near -707, DBL_MIN's edge
        }
        check(centres, Metric::Shape, far, kernel);
        check_single(centres, Metric::Shape, far, kernel);
        // Centres and rows far from the origin: single precision works about their mean.
        Centres shifted = centres;
        Matrix moved = x;
        for (double& v : shifted.means) v += 1e4;
        for (double& v : moved) v += 1e4;
        REQUIRE(GaussianRows::single_precision_suits(shifted, Metric::Shape) ==
                GaussianRows::single_precision_suits(centres, Metric::Shape));
        if (GaussianRows::single_precision_suits(shifted, Metric::Shape))
          check_single(shifted, Metric::Shape, moved, kernel);
      }
    }
  }
}

TEST_CASE("fused Gaussian activations refuse what they cannot compute", "[gaussian-rows]") {
  if (GaussianRows::kernels().empty()) return;
  Centres centres;
  centres.means = Matrix::from_shape({2, 2});
  centres.means.fill(0.0);
  centres.shape = Shape::Diagonal;
  centres.diagonal = Matrix::from_shape({2, 2});
  centres.diagonal.fill(1.0);
  REQUIRE_FALSE(GaussianRows::supports(centres, Metric::Shape));
  REQUIRE(GaussianRows::supports(centres, Metric::Euclidean));
  REQUIRE_THROWS_AS(GaussianRows(centres, Metric::Shape), ShapeError);
  centres.shape = Shape::Spherical;
  centres.variances = Vector::from_shape({2});
  centres.variances(0) = 1.0;
  centres.variances(1) = 0.0;
  REQUIRE_THROWS_AS(GaussianRows(centres, Metric::Shape), ShapeError);
}

TEST_CASE("single-precision normal products equal Phi^T (Phi X) of the same activations",
          "[gaussian-rows]") {
  // Phi = [phi, 1] from compute() (the same float activations, widened), its product summed in
  // long double, against add_normal_products: they differ only in the order of double sums.
  if (!GaussianRows::kernel()) return;  // no fused kernel on this CPU
  bool avx512 = false;
  for (const char* k : GaussianRows::kernels()) avx512 |= std::string(k) == "avx512";
  std::mt19937_64 rng(21);
  for (const std::size_t m : {1, 31, 33, 700}) {
    for (const std::size_t n : {1, 5, 64}) {
      for (const std::size_t k : {1, 2, 3, 4, 5}) {
        const std::size_t d = 6, p = m + 1;
        Centres centres;
        centres.means = random_matrix(m, d, 1.0, rng);
        centres.shape = Shape::Spherical;
        centres.variances = xt::ones<double>({m}) * 2.0;
        const Matrix x = random_matrix(n, d, 1.0, rng);
        const GaussianRows rows(centres, Metric::Shape, GaussianRows::kernel(),
                                GaussianRows::Precision::Single);
        const Matrix xt = random_matrix(k, p, 1.0, rng);
        const Matrix start = random_matrix(k, p, 1.0, rng);
        Matrix qt = start;
        const bool fused = rows.add_normal_products(x.data(), n, xt.data(), k, qt.data());
        INFO("m " << m << " rows " << n << " k " << k);
        REQUIRE(fused == (avx512 && k <= 4));
        if (!fused) {
          REQUIRE((qt == start));
          continue;
        }
        std::vector<double> phi(n * p, 1.0);  // the bias column stays 1
        rows.compute(x.data(), n, phi.data(), p);
        for (std::size_t c = 0; c < k; ++c)
          for (std::size_t j = 0; j < p; ++j) {
            long double want = start(c, j), scale = std::fabs(start(c, j));
            for (std::size_t i = 0; i < n; ++i) {
              long double u = 0, us = 0;
              for (std::size_t l = 0; l < p; ++l) {
                u += (long double)phi[i * p + l] * xt(c, l);
                us += std::fabs(phi[i * p + l] * xt(c, l));
              }
              want += u * phi[i * p + j];
              scale += us * phi[i * p + j];
            }
            REQUIRE(std::fabs(qt(c, j) - double(want)) <= 8 * double(p + n) * eps * double(scale));
          }
      }
    }
  }
}
