// Metrics against hand computations.
#include <cmath>

#include <catch2/catch.hpp>

#include "radial/core/errors.hpp"
#include "radial/training/metrics.hpp"

using radial::Dataset;
using radial::Link;
using radial::Matrix;

namespace {

Dataset three_rows_two_classes() {
  Dataset d;
  d.inputs = Matrix({{0.0}, {1.0}, {2.0}});
  d.task = radial::Task::Classification;
  d.classes = radial::Labels({0, 1, 1});
  d.num_classes = 2;
  d.class_values = {0, 1};
  return d;
}

}  // namespace

TEST_CASE("probabilistic outputs: error rate, cross-entropy and squared error by hand") {
  const Dataset d = three_rows_two_classes();
  const Matrix p({{0.8, 0.2}, {0.3, 0.7}, {0.6, 0.4}});  // third row misclassified
  const auto m = radial::compute_metrics(p, Link::Softmax, d);
  CHECK(m.rows == 3);
  CHECK(*m.misclassified == 1);
  CHECK(*m.error_rate == Approx(1.0 / 3.0));
  CHECK(*m.cross_entropy == Approx(-(std::log(0.8) + std::log(0.7) + std::log(0.4)) / 3.0));
  // (0.2^2 + 0.2^2) + (0.3^2 + 0.3^2) + (0.6^2 + 0.6^2), over 3 rows.
  CHECK(m.mse == Approx((0.08 + 0.18 + 0.72) / 3.0));
}

TEST_CASE("linear outputs have no cross-entropy; a zero probability stays finite") {
  const Dataset d = three_rows_two_classes();
  const Matrix y({{1.2, -0.2}, {0.1, 0.9}, {0.0, 1.0}});
  const auto m = radial::compute_metrics(y, Link::Identity, d);
  CHECK_FALSE(m.cross_entropy.has_value());
  CHECK(*m.misclassified == 0);
  const Matrix p({{1.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}});
  const auto q = radial::compute_metrics(p, Link::Softmax, d);
  REQUIRE(q.cross_entropy.has_value());
  CHECK(std::isfinite(*q.cross_entropy));
  CHECK(*q.cross_entropy == Approx(-std::log(1e-300) / 3.0));
}

TEST_CASE("regression metrics: mean squared error only") {
  Dataset d;
  d.inputs = Matrix({{0.0}, {1.0}});
  d.task = radial::Task::Regression;
  d.values = radial::Vector({1.0, -1.0});
  const auto m = radial::compute_metrics(Matrix({{1.5}, {-2.0}}), Link::Identity, d);
  CHECK_FALSE(m.error_rate.has_value());
  CHECK(m.mse == Approx((0.25 + 1.0) / 2.0));
}

TEST_CASE("metrics refuse outputs that do not match the data") {
  const Dataset d = three_rows_two_classes();
  CHECK_THROWS_AS(radial::compute_metrics(Matrix({{1.0, 0.0}}), Link::Softmax, d), radial::ShapeError);
  CHECK_THROWS_AS(radial::compute_metrics(Matrix({{1.0, 0, 0}, {1, 0, 0}, {1, 0, 0}}), Link::Softmax, d),
                  radial::ShapeError);
}

TEST_CASE("metrics accumulated over row blocks: the hand values, and blocks must continue") {
  const Dataset d = three_rows_two_classes();
  const Matrix p({{0.8, 0.2}, {0.3, 0.7}, {0.6, 0.4}});
  radial::MetricsAccumulator sums(Link::Softmax, d);
  sums.add(0, Matrix({{0.8, 0.2}}));
  CHECK_THROWS_AS(sums.add(2, Matrix({{0.6, 0.4}})), radial::ShapeError);  // row 1 skipped
  CHECK_THROWS_AS(sums.result(), radial::ShapeError);                      // rows missing
  sums.add(1, Matrix({{0.3, 0.7}, {0.6, 0.4}}));
  const auto m = sums.result();
  CHECK(*m.misclassified == 1);
  CHECK(*m.cross_entropy == Approx(-(std::log(0.8) + std::log(0.7) + std::log(0.4)) / 3.0));
  CHECK(m.mse == Approx((0.08 + 0.18 + 0.72) / 3.0));
  // The same left-to-right sums as one call on the whole matrix: equal to the last bit.
  const auto whole = radial::compute_metrics(p, Link::Softmax, d);
  CHECK(*m.cross_entropy == *whole.cross_entropy);
  CHECK(m.mse == whole.mse);
  CHECK_THROWS_AS(sums.add(3, Matrix({{0.5, 0.5}})), radial::ShapeError);  // past the end
}
