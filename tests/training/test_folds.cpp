// Fold assignment and seed derivation.
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "radial/testing/labelled_rows.hpp"
#include "radial/training/trainer.hpp"

using radial::testing::labelled;

TEST_CASE("stratified folds give every fold its share of every class") {
  std::vector<std::int64_t> classes;
  for (int i = 0; i < 50; ++i) classes.push_back(0);
  for (int i = 0; i < 30; ++i) classes.push_back(1);
  for (int i = 0; i < 20; ++i) classes.push_back(2);
  const auto data = labelled(classes, 3);
  const auto fold = radial::assign_folds(data, 10, true, 42);
  std::map<std::size_t, std::map<std::int64_t, int>> counts;
  std::map<std::size_t, int> sizes;
  for (std::size_t n = 0; n < classes.size(); ++n) {
    ++counts[fold[n]][classes[n]];
    ++sizes[fold[n]];
  }
  REQUIRE(sizes.size() == 10);
  for (const auto& [f, c] : counts) {
    CHECK(sizes[f] == 10);
    CHECK(c.at(0) == 5);
    CHECK(c.at(1) == 3);
    CHECK(c.at(2) == 2);
  }
}

TEST_CASE("plain folds differ in size by at most one and depend only on the seed") {
  const auto data = labelled(std::vector<std::int64_t>(23, 0), 1);
  const auto a = radial::assign_folds(data, 5, false, 7);
  const auto b = radial::assign_folds(data, 5, false, 7);
  const auto c = radial::assign_folds(data, 5, false, 8);
  CHECK(a == b);
  CHECK(a != c);
  std::map<std::size_t, int> sizes;
  for (auto f : a) ++sizes[f];
  for (const auto& [f, s] : sizes) CHECK((s == 4 || s == 5));
}

TEST_CASE("derived seeds are distinct per stream and stable") {
  std::set<std::uint64_t> seen;
  for (std::uint64_t stream = 0; stream < 1000; ++stream) seen.insert(radial::derive_seed(1, stream));
  CHECK(seen.size() == 1000);
  CHECK(radial::derive_seed(1, 3) == radial::derive_seed(1, 3));
  CHECK(radial::derive_seed(1, 3) != radial::derive_seed(2, 3));
  // SplitMix64 reference value: seed 0 + golden ratio step, first output (Steele et al. 2014).
  CHECK(radial::derive_seed(0, 0) == 0xE220A8397B1DCDAFULL);
}
