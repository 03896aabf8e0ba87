// The blocked parallel Cholesky (cholesky_lower) against the definition and LAPACK: L L^T = A
// to rounding, the same bits for 1, 2 and 3 threads, and LAPACK's info for a matrix that is not
// positive definite (the first failing leading minor, across a tile boundary).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <radial/numerics/cholesky.hpp>

using namespace radial;

namespace {

// A = B B^T / p + I, column-major.
std::vector<double> spd(std::size_t p, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::vector<double> b(p * p), a(p * p);
  for (double& v : b) v = normal(rng);
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      double s = 0;
      for (std::size_t k = 0; k < p; ++k) s += b[i + k * p] * b[j + k * p];
      a[i + j * p] = s / double(p) + (i == j ? 1.0 : 0.0);
    }
  return a;
}

}  // namespace

TEST_CASE("blocked parallel Cholesky factors A = L L^T, the same for any thread count",
          "[cholesky]") {
  std::mt19937_64 rng(3);
  for (std::size_t p : {1, 5, 255, 256, 257, 600}) {
    const std::vector<double> a = spd(p, rng);
    std::vector<double> one = a;
    REQUIRE(cholesky_lower(one.data(), p, 1) == 0);
    for (int threads : {2, 3}) {
      std::vector<double> many = a;
      REQUIRE(cholesky_lower(many.data(), p, threads) == 0);
      for (std::size_t j = 0; j < p; ++j)
        for (std::size_t i = j; i < p; ++i) REQUIRE(many[i + j * p] == one[i + j * p]);
    }
    double worst = 0;
    for (std::size_t j = 0; j < p; ++j)
      for (std::size_t i = j; i < p; ++i) {
        double s = 0;
        for (std::size_t k = 0; k <= j; ++k) s += one[i + k * p] * one[j + k * p];
        worst = std::max(worst, std::fabs(s - a[i + j * p]));
      }
    INFO("p = " << p);
    REQUIRE(worst <= 64 * double(p) * std::numeric_limits<double>::epsilon() * 4);
  }
}

TEST_CASE("blocked parallel Cholesky reports the first leading minor that is not positive",
          "[cholesky]") {
  std::mt19937_64 rng(4);
  const std::size_t p = 400;
  std::vector<double> a = spd(p, rng);
  // Row and column 300 made a copy of 299's: the minor of order 301 is singular.
  for (std::size_t i = 0; i < p; ++i) {
    a[i + 300 * p] = a[i + 299 * p];
    a[300 + i * p] = a[299 + i * p];
  }
  a[300 + 300 * p] = a[299 + 299 * p] - 1e-3;
  for (int threads : {1, 2}) {
    std::vector<double> f = a;
    REQUIRE(cholesky_lower(f.data(), p, threads) == 301);
  }
}
