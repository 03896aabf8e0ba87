// The radial functions bases are built from (radial/numerics/radial_functions.hpp) against their
// closed forms: polyharmonic splines r^(2k) log r, and (r^2 + c^2)^(+-1/2) with its log, for c
// whose square is a normal double and for c whose square under- or overflows.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/numerics/radial_functions.hpp>

using radial::Matrix;

TEST_CASE("polyharmonic_log is r^(2k) log r, 0 at r = 0, NaN kept", "[radial-functions]") {
  for (unsigned k : {1u, 2u, 3u}) {
    Matrix r2 = {{0.0, 1.0, 4.0, 0.25, 1e-300, std::nan("")}};
    radial::polyharmonic_log(r2, k);
    INFO("k = " << k);
    CHECK(r2(0, 0) == 0.0);
    CHECK(r2(0, 1) == 0.0);  // log 1
    CHECK(r2(0, 2) == Approx(std::pow(2.0, 2 * k) * std::log(2.0)).epsilon(1e-15));
    CHECK(r2(0, 3) == Approx(std::pow(0.5, 2 * k) * std::log(0.5)).epsilon(1e-15));
    // r = 1e-150: k = 1 gives 1e-300 log(1e-150); higher powers underflow to -0.
    CHECK(r2(0, 4) == Approx(0.5 * std::pow(1e-300, k) * std::log(1e-300)).epsilon(1e-14));
    CHECK(std::isnan(r2(0, 5)));
  }
}

TEST_CASE("QuadricShift: (r^2 + c^2)^(+-1/2) and its log", "[radial-functions]") {
  const radial::QuadricShift shift(2.0);
  CHECK(shift.c() == 2.0);
  const Matrix r2 = {{0.0, 9.0, 2.25}};
  Matrix up = r2, down = r2, log_up = r2, log_down = r2;
  shift.power(up, 1);
  shift.power(down, -1);
  shift.log_power(log_up, 1);
  shift.log_power(log_down, -1);
  const double sums[] = {4.0, 13.0, 6.25};
  for (std::size_t j = 0; j < 3; ++j) {
    CHECK(up(0, j) == Approx(std::sqrt(sums[j])).epsilon(1e-15));
    CHECK(down(0, j) == Approx(1 / std::sqrt(sums[j])).epsilon(1e-15));
    CHECK(log_up(0, j) == Approx(0.5 * std::log(sums[j])).epsilon(1e-15));
    CHECK(log_down(0, j) == Approx(-0.5 * std::log(sums[j])).epsilon(1e-15));
  }
}

TEST_CASE("QuadricShift keeps a c whose square under- or overflows", "[radial-functions]") {
  // c = 1e-300: c^2 = 0 in doubles, yet phi(0) = c, and 1/c = 1e300 for the inverse.
  const radial::QuadricShift tiny(1e-300);
  Matrix r2 = {{0.0, 9.0}};
  Matrix inverse = r2, logs = r2;
  tiny.power(r2, 1);
  tiny.power(inverse, -1);
  tiny.log_power(logs, -1);
  CHECK(r2(0, 0) == 1e-300);
  CHECK(r2(0, 1) == Approx(3.0).epsilon(1e-15));
  CHECK(inverse(0, 0) == Approx(1e300).epsilon(1e-15));
  CHECK(logs(0, 0) == Approx(-std::log(1e-300)).epsilon(1e-15));
  // c = 1e200: c^2 overflows, yet r^2 + c^2 = c^2 to working precision for r = 5.
  const radial::QuadricShift huge(1e200);
  Matrix big = {{25.0}}, big_log = {{25.0}};
  huge.power(big, 1);
  huge.log_power(big_log, 1);
  CHECK(big(0, 0) == 1e200);
  CHECK(big_log(0, 0) == Approx(std::log(1e200)).epsilon(1e-15));
}
