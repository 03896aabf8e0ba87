// Log-sum-exp, softmax and the scalar helpers at extreme inputs, against closed forms and a
// long-double direct sum.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include <radial/numerics/log_sum_exp.hpp>

using namespace radial;

namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
}

TEST_CASE("log-sum-exp survives huge and infinite inputs", "[log-sum-exp]") {
  const Matrix a = {{1000.0, 1000.0},          // log 2 + 1000 (direct exp overflows)
                    {-1000.0, -1000.0},        // log 2 - 1000 (direct exp underflows)
                    {-inf, 0.0},               // 0
                    {-inf, -inf},              // -inf
                    {inf, 3.0},                // +inf
                    {std::nan(""), 1.0},       // NaN is propagated
                    {0.0, std::log(3.0)}};     // log 4
  const Vector l = log_sum_exp_rows(a);
  REQUIRE(l(0) == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  REQUIRE(l(1) == Approx(-1000.0 + std::log(2.0)).epsilon(1e-15));
  REQUIRE(l(2) == 0.0);
  REQUIRE(l(3) == -inf);
  REQUIRE(l(4) == inf);
  REQUIRE(std::isnan(l(5)));
  REQUIRE(l(6) == Approx(std::log(4.0)).epsilon(1e-15));
}

TEST_CASE("log-sum-exp of long rows matches a long-double sum", "[log-sum-exp]") {
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(-30.0, 30.0);
  Matrix a = Matrix::from_shape({5, 1001});  // odd length: vector body and scalar tail
  for (auto& v : a) v = u(rng);
  const Vector l = log_sum_exp_rows(a);
  for (std::size_t n = 0; n < 5; ++n) {
    long double sum = 0;
    for (std::size_t k = 0; k < 1001; ++k) sum += std::exp(static_cast<long double>(a(n, k)));
    REQUIRE(l(n) == Approx(double(std::log(sum))).epsilon(1e-13));
  }
}

TEST_CASE("softmax rows are stable and sum to one", "[log-sum-exp]") {
  Matrix a = {{1e4, 1e4 + std::log(3.0)},   // [1/4, 3/4] although exp(1e4) overflows
              {-1e4, -1e4 + std::log(3.0)},
              {-inf, -inf}, {inf, 0.0}, {-inf, 2.0}};
  softmax_rows(a);
  REQUIRE(a(0, 0) == Approx(0.25).epsilon(1e-12));
  REQUIRE(a(0, 1) == Approx(0.75).epsilon(1e-12));
  REQUIRE(a(1, 0) == Approx(0.25).epsilon(1e-12));
  REQUIRE(a(1, 1) == Approx(0.75).epsilon(1e-12));
  REQUIRE(a(2, 0) == 0.5);  // all -inf: uniform limit
  REQUIRE(a(2, 1) == 0.5);
  REQUIRE(a(3, 0) == 1.0);  // +inf takes all the mass
  REQUIRE(a(3, 1) == 0.0);
  REQUIRE(a(4, 0) == 0.0);
  REQUIRE(a(4, 1) == 1.0);
}

TEST_CASE("log-softmax equals the log of the softmax", "[log-sum-exp]") {
  Matrix a = {{1e4, 1e4 + std::log(3.0), 1e4 - 50.0}, {-inf, -inf, -inf}, {0.5, -inf, 1.5}};
  Matrix b = a;
  log_softmax_rows(a);
  softmax_rows(b);
  for (std::size_t n = 0; n < 3; ++n)
    for (std::size_t k = 0; k < 3; ++k) {
      INFO("row " << n << " column " << k);
      if (b(n, k) == 0.0) REQUIRE(a(n, k) == -inf);
      // Inputs near 1e4 carry an absolute rounding of 1e4 * 2^-52 ~ 2e-12: hence the margin.
      else REQUIRE(a(n, k) == Approx(std::log(b(n, k))).epsilon(1e-12).margin(1e-11));
    }
  REQUIRE(a(0, 2) == Approx(-50.0 - std::log(4.0 + std::exp(-50.0))).epsilon(1e-14));
}

TEST_CASE("log1p_exp and sigmoid never overflow", "[log-sum-exp]") {
  REQUIRE(log1p_exp(0.0) == Approx(std::log(2.0)).epsilon(1e-15));
  REQUIRE(log1p_exp(800.0) == 800.0);
  REQUIRE(log1p_exp(-800.0) == 0.0);
  REQUIRE(log1p_exp(-30.0) == Approx(std::exp(-30.0)).epsilon(1e-12));
  REQUIRE(log1p_exp(30.0) == Approx(30.0 + std::exp(-30.0)).epsilon(1e-15));
  REQUIRE(sigmoid(0.0) == 0.5);
  REQUIRE(sigmoid(800.0) == 1.0);
  REQUIRE(sigmoid(-800.0) == 0.0);
  REQUIRE(sigmoid(-800.0) >= 0.0);
  for (double x : {-40.0, -3.0, -0.1, 0.7, 5.0, 37.0}) {
    REQUIRE(sigmoid(x) == Approx(1.0 / (1.0 + std::exp(-x))).epsilon(1e-14));
    REQUIRE(sigmoid(x) + sigmoid(-x) == Approx(1.0).epsilon(1e-15));
  }
}
