// The objective on every s-th row block (radial/glm/block_subsample.hpp): which rows it holds,
// against the blocks counted by hand; its penalty, against share x the closed form; and the
// threads of an objective on Phi in memory, which must not change a bit of a pass.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "radial/glm/block_subsample.hpp"
#include "radial/glm/objective.hpp"
#include "radial/testing/penalties.hpp"

using radial::Link;
using radial::Matrix;
using radial::glm::HessianKind;
using radial::glm::Objective;

namespace {

// Row i of Phi is (i, i + 0.5, 1): each row names itself. Targets alternate 0/1.
void numbered_rows(std::size_t n, Matrix& phi, Matrix& targets) {
  phi = xt::zeros<double>({n, std::size_t(3)});
  targets = xt::zeros<double>({n, std::size_t(1)});
  for (std::size_t i = 0; i < n; ++i) {
    phi(i, 0) = double(i);
    phi(i, 1) = double(i) + 0.5;
    phi(i, 2) = 1.0;
    targets(i, 0) = double(i % 2);
  }
}

}  // namespace

TEST_CASE("every_nth_block: whole blocks whose index is a multiple of the stride", "[glm]") {
  const std::size_t block = radial::glm::objective_block_rows;
  const std::size_t n = 9 * block + 100;  // blocks 0..9, the last one short
  Matrix phi, targets;
  numbered_rows(n, phi, targets);
  const Objective full(phi, targets, Link::Logistic);
  for (std::size_t stride : {std::size_t(1), std::size_t(3), std::size_t(4), std::size_t(9),
                             std::size_t(20)}) {
    Matrix sub_phi, sub_targets;
    full.every_nth_block(stride, sub_phi, sub_targets);
    // By hand: the rows of blocks 0, s, 2s, ... in order.
    std::vector<std::size_t> expected;
    for (std::size_t b = 0; b * block < n; b += stride)
      for (std::size_t i = b * block; i < std::min(n, (b + 1) * block); ++i) expected.push_back(i);
    REQUIRE(sub_phi.shape(0) == expected.size());
    REQUIRE(sub_targets.shape(0) == expected.size());
    bool same = true;
    for (std::size_t r = 0; r < expected.size(); ++r)
      same &= sub_phi(r, 0) == double(expected[r]) && sub_phi(r, 1) == double(expected[r]) + 0.5 &&
              sub_targets(r, 0) == double(expected[r] % 2);
    CHECK(same);
  }
  Matrix a, b;
  CHECK_THROWS(full.every_nth_block(0, a, b));
}

TEST_CASE("block_subsample: the penalty scaled by the subsample's share of the rows", "[glm]") {
  const std::size_t block = radial::glm::objective_block_rows;
  const std::size_t n = 10 * block;
  Matrix phi, targets;
  numbered_rows(n, phi, targets);
  for (std::size_t i = 0; i < n; ++i) {  // bounded features, so the link stays unsaturated
    phi(i, 0) = std::sin(0.01 * double(i));
    phi(i, 1) = std::cos(0.017 * double(i));
  }
  const radial::testing::QuadraticPenalty ridge(0.3, true);  // every weight
  const Objective full(phi, targets, Link::Logistic, &ridge);
  const radial::glm::BlockSubsample sub = radial::glm::block_subsample(full, 4);  // blocks 0, 4, 8
  CHECK(sub.stride == 4);
  CHECK(sub.rows == 3 * block);
  REQUIRE(sub.objective);
  const double share = 3.0 / 10.0;
  Matrix w = xt::zeros<double>({std::size_t(3), std::size_t(1)});
  w(0, 0) = 0.7;
  w(1, 0) = -1.1;
  w(2, 0) = 0.2;
  CHECK(sub.objective->penalty(w) == Approx(share * ridge.penalty(w)).epsilon(1e-15));
  Matrix g, h;
  const double e = sub.objective->hessian(w, HessianKind::Exact, g, h);
  // The data term on the kept rows alone, plus share x the ridge's gradient and Hessian.
  Matrix kept_phi = xt::zeros<double>({3 * block, std::size_t(3)});
  Matrix kept_t = xt::zeros<double>({3 * block, std::size_t(1)});
  for (std::size_t k = 0, r = 0; k < 3; ++k)
    for (std::size_t i = k * 4 * block; i < k * 4 * block + block; ++i, ++r) {
      for (std::size_t j = 0; j < 3; ++j) kept_phi(r, j) = phi(i, j);
      kept_t(r, 0) = targets(i, 0);
    }
  Objective data_only(kept_phi, kept_t, Link::Logistic);
  Matrix g0, h0;
  const double e0 = data_only.hessian(w, HessianKind::Exact, g0, h0);
  CHECK(e == Approx(e0 + share * ridge.penalty(w)).epsilon(1e-12));
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(g(i, 0) == Approx(g0(i, 0) + share * 0.3 * w(i, 0)).epsilon(1e-12).margin(1e-12));
    for (std::size_t j = 0; j < 3; ++j)
      CHECK(h(i, j) == Approx(h0(i, j) + (i == j ? share * 0.3 : 0.0)).epsilon(1e-12));
  }
  // Without a penalty the subsample has none.
  const Objective bare(phi, targets, Link::Logistic);
  CHECK_FALSE(radial::glm::block_subsample(bare, 4).objective->penalised());
}

TEST_CASE("objective on Phi in memory: the same bits for any thread count", "[glm]") {
  const std::size_t n = 7 * radial::glm::objective_block_rows + 33, c = 6;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  Matrix phi = xt::zeros<double>({n, c}), targets = xt::zeros<double>({n, std::size_t(1)});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j + 1 < c; ++j) phi(i, j) = normal(rng);
    phi(i, c - 1) = 1.0;
    targets(i, 0) = normal(rng) + phi(i, 0) > 0 ? 1.0 : 0.0;
  }
  Matrix w = xt::zeros<double>({c, std::size_t(1)});
  for (std::size_t j = 0; j < c; ++j) w(j, 0) = 0.1 * double(j) - 0.2;
  Objective one(phi, targets, Link::Logistic), two(phi, targets, Link::Logistic);
  two.set_threads(2);
  CHECK(two.threads() == 2);
  Matrix g1, h1, g2, h2;
  const double e1 = one.hessian(w, HessianKind::Exact, g1, h1);
  const double e2 = two.hessian(w, HessianKind::Exact, g2, h2);
  CHECK(e1 == e2);
  CHECK(std::equal(g1.begin(), g1.end(), g2.begin()));
  CHECK(std::equal(h1.begin(), h1.end(), h2.begin()));
}
