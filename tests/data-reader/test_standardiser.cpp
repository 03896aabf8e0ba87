// Standardiser against scikit-learn's StandardScaler (tests/reference/data_reader.py).

#include <catch2/catch.hpp>

#include "radial/data_reader.hpp"
#include "radial/errors.hpp"
#include "radial/standardiser.hpp"
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
