// Standardiser against scikit-learn's StandardScaler (tests/reference/data_reader.py).

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/standardiser.hpp"
#include "radial/testing/paths.hpp"

TEST_CASE("Standardiser matches scikit-learn's StandardScaler", "[standardiser]") {
  radial::Matrix x = radial::read_csv(radial::testing::test_data("random-regression.csv")).inputs;
  radial::Standardiser standardiser;
  CHECK_FALSE(standardiser.fitted());
  CHECK(standardiser.fit(x) == 1);  // column "constant"
  CHECK(standardiser.fitted());

  // StandardScaler().fit(X).mean_ and .scale_ (population standard deviation; 1 if constant).
  const double mean[] = {-0.20514409623710503, 2.9835696184402685, -3.0007964958956275, 2.5};
  const double scale[] = {0.8056823897112596, 7.47992320374822, 0.010059738680948498, 1.0};
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(standardiser.mean(j) == Approx(mean[j]).epsilon(1e-13));
    CHECK(standardiser.scale(j) == Approx(scale[j]).epsilon(1e-12));
  }

  standardiser.apply(x);
  const double first[] = {0.25614839325028316, 0.6689755523341421, -0.19333331805903964, 0.0};
  const double last[] = {1.356671671158006, 0.1499414809651435, 0.06523018292317875, 0.0};
  for (std::size_t j = 0; j < 4; ++j) {
    CHECK(x(0, j) == Approx(first[j]).epsilon(1e-11).margin(1e-13));
    CHECK(x(59, j) == Approx(last[j]).epsilon(1e-11).margin(1e-13));
  }
}

TEST_CASE("Standardiser: a constant column maps to exactly 0 with scale 1", "[standardiser]") {
  // Three 0.1s average to 0.10000000000000002 in floating point: the fit must not leave that
  // rounding behind.
  radial::Matrix x = {{0.1, 1.0}, {0.1, 2.0}, {0.1, 3.0}};
  radial::Standardiser standardiser;
  CHECK(standardiser.fit(x) == 1);
  CHECK(standardiser.scale(0) == 1.0);
  // Column 2: mean 2, population sd sqrt(2/3).
  CHECK(standardiser.mean(1) == Approx(2.0));
  CHECK(standardiser.scale(1) == Approx(std::sqrt(2.0 / 3.0)));
  standardiser.apply(x);
  for (std::size_t i = 0; i < 3; ++i) CHECK(x(i, 0) == 0.0);
  CHECK(x(0, 1) == Approx(-1.0 / std::sqrt(2.0 / 3.0)));

  // Fitting again on the same data gives the same result (no state carried over).
  radial::Matrix again = {{0.1, 1.0}, {0.1, 2.0}, {0.1, 3.0}};
  radial::Standardiser twice;
  twice.fit(again);
  twice.fit(again);
  CHECK(twice.mean(1) == standardiser.mean(1));
  CHECK(twice.scale(1) == standardiser.scale(1));
}

TEST_CASE("Standardiser: column-count mismatch and empty data are ShapeErrors",
          "[standardiser]") {
  radial::Standardiser standardiser;
  radial::Matrix x = {{1.0, 2.0}, {3.0, 5.0}};
  radial::Matrix wide = {{1.0, 2.0, 3.0}};
  CHECK_THROWS_AS(standardiser.apply(x), radial::ShapeError);  // not fitted
  standardiser.fit(x);
  CHECK_THROWS_WITH(standardiser.apply(wide),
                    Catch::Matchers::Contains("the data has 3 input columns, but it was fitted "
                                              "on 2"));
  radial::Matrix empty = radial::Matrix::from_shape({0, 2});
  CHECK_THROWS_AS(radial::Standardiser().fit(empty), radial::ShapeError);
}

// Deviations were once squared unscaled, so values near 1e300 gave an infinite
// scale (every input became 0) and values near 1e307 a non-finite mean.
TEST_CASE("Standardiser: huge and tiny columns give the small column's statistics, scaled",
          "[standardiser][hostile]") {
  // Small column {1, -1, 3, 5}: mean 2, population sd sqrt((1 + 9 + 1 + 9) / 4) = sqrt(5).
  const double small[] = {1.0, -1.0, 3.0, 5.0};
  for (const int exponent : {996, 1019, -1000}) {
    INFO("column scaled by 2^" << exponent);
    radial::Matrix x = radial::Matrix::from_shape({4, 2});
    for (std::size_t i = 0; i < 4; ++i) {
      x(i, 0) = small[i];
      x(i, 1) = std::ldexp(small[i], exponent);  // exact: a power of two
    }
    radial::Standardiser s;
    CHECK(s.fit(x) == 0);
    // Bit-exact: scaling by a power of two commutes with every rounding.
    CHECK(s.mean(0) == 2.0);
    CHECK(s.mean(1) == std::ldexp(2.0, exponent));
    CHECK(s.scale(0) == std::sqrt(5.0));
    CHECK(s.scale(1) == std::ldexp(std::sqrt(5.0), exponent));
    s.apply(x);
    for (std::size_t i = 0; i < 4; ++i) {
      CHECK(x(i, 1) == x(i, 0));
      CHECK(x(i, 0) == Approx((small[i] - 2.0) / std::sqrt(5.0)).epsilon(1e-15));
    }
  }

  // 1e300 times the small column (not a power of two): 1e300 times its statistics, to rounding.
  radial::Matrix big = {{1e300}, {-1e300}, {3e300}, {5e300}};
  radial::Standardiser s;
  s.fit(big);
  CHECK(s.mean(0) == Approx(2e300).epsilon(1e-15));
  CHECK(s.scale(0) == Approx(std::sqrt(5.0) * 1e300).epsilon(1e-15));
  s.apply(big);
  CHECK(big(3, 0) == Approx(3.0 / std::sqrt(5.0)).epsilon(1e-14));

  // Up to the largest double: {M, -M} has mean 0, sd M, and z = +-1 (x - mean overflows for
  // a mean of -M/2, so apply() halves first).
  const double m = std::numeric_limits<double>::max();
  radial::Matrix extreme = {{m, m}, {-m, 0.0}};
  radial::Standardiser e;
  e.fit(extreme);
  CHECK(e.mean(0) == 0.0);
  CHECK(e.scale(0) == m);
  CHECK(e.mean(1) == m / 2);
  CHECK(e.scale(1) == m / 2);
  radial::Matrix probe = {{m, -m}};
  e.apply(extreme);
  e.apply(probe);
  CHECK(extreme(0, 0) == 1.0);
  CHECK(extreme(1, 0) == -1.0);
  CHECK(extreme(0, 1) == 1.0);
  CHECK(extreme(1, 1) == -1.0);
  CHECK(probe(0, 1) == -3.0);  // (-M - M/2) / (M/2), computed without overflow
}

TEST_CASE("Training without standardisation refuses inputs whose squared distances overflow",
          "[standardiser][hostile]") {
  radial::Dataset data;
  data.source = "big.csv";
  data.feature_names = {"a", "b"};
  data.inputs = {{1.0, 2.0}, {3.0, 1e300}};
  CHECK_THROWS_WITH(radial::check_unstandardised_range(data),
                    Catch::Matchers::StartsWith("big.csv: input column 'b' holds 1e+300 (data row 2)") &&
                        Catch::Matchers::Contains("set standardize = true in [data]"));
  // sqrt(DBL_MAX / 8) ~ 4.7e153 is the limit for 2 features.
  data.inputs(1, 1) = 4.6e153;
  CHECK_NOTHROW(radial::check_unstandardised_range(data));
  data.inputs(1, 1) = -4.8e153;
  CHECK_THROWS_AS(radial::check_unstandardised_range(data), radial::DataError);
}
