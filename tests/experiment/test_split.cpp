// The per-seed split of a file: class shares by largest remainder, computed here by hand.
#include <algorithm>
#include <numeric>

#include <catch2/catch.hpp>

#include "experiment_internal.hpp"
#include "radial/testing/labelled_rows.hpp"

using radial::testing::labelled;

namespace {

std::vector<std::size_t> per_class(const radial::Dataset& d, const std::vector<std::size_t>& rows) {
  std::vector<std::size_t> count(d.num_classes, 0);
  for (std::size_t r : rows) ++count[d.classes(r)];
  return count;
}

void check_partition(const std::vector<std::size_t>& train, const std::vector<std::size_t>& test,
                     std::size_t n) {
  CHECK(std::is_sorted(train.begin(), train.end()));
  CHECK(std::is_sorted(test.begin(), test.end()));
  std::vector<std::size_t> all = train;
  all.insert(all.end(), test.begin(), test.end());
  std::sort(all.begin(), all.end());
  std::vector<std::size_t> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(all == expected);
}

}  // namespace

TEST_CASE("two classes 7 and 3, 5 training rows: shares 3.5 and 1.5, the tie to class 0") {
  const auto d = labelled({0, 1, 0, 0, 1, 0, 0, 1, 0, 0}, 2);
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto [train, test] = radial::experiment::split_indices(d, 5, seed);
    check_partition(train, test, 10);
    CHECK(per_class(d, train) == std::vector<std::size_t>{4, 1});
    CHECK(per_class(d, test) == std::vector<std::size_t>{3, 2});
  }
}

TEST_CASE("three classes 5, 3, 2 and 4 training rows: shares 2, 1.2, 0.8 give 2, 1, 1") {
  const auto d = labelled({2, 0, 1, 0, 0, 1, 2, 0, 1, 0}, 3);
  const auto [train, test] = radial::experiment::split_indices(d, 4, 7);
  check_partition(train, test, 10);
  CHECK(per_class(d, train) == std::vector<std::size_t>{2, 1, 1});
}

TEST_CASE("the split depends on the seed only") {
  const auto d = labelled({0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0}, 2);
  const auto a = radial::experiment::split_indices(d, 8, 1);
  CHECK(radial::experiment::split_indices(d, 8, 1) == a);
  bool moved = false;
  for (std::uint64_t seed = 2; seed < 6; ++seed) {
    moved = moved || radial::experiment::split_indices(d, 8, seed) != a;
  }
  CHECK(moved);
}

TEST_CASE("regression rows are drawn without strata") {
  radial::Dataset d;
  d.task = radial::Task::Regression;
  d.inputs = radial::Matrix::from_shape({9, 1});
  d.values = radial::Vector::from_shape({9});
  const auto [train, test] = radial::experiment::split_indices(d, 3, 5);
  CHECK(train.size() == 3);
  check_partition(train, test, 9);
}
