// DesignMatrix: blocked passes, the cache, compute_block and the log domain all equal the
// brute-force matrix [exp(-r2 / 2), 1] of a test basis; kept in single precision, every block
// is that matrix rounded to float.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <random>

#include <radial/network/design_matrix.hpp>
#include <radial/numerics/normal_rows.hpp>
#include <radial/core/errors.hpp>

#include "brute_force.hpp"

using namespace radial;

namespace {

// phi = exp(-r2 / 2); counts map() calls so the tests can see when the cache is used.
class CountingBasis : public Basis {
 public:
  explicit CountingBasis(Metric metric, bool log_map = true) : metric_(metric), log_(log_map) {}
  Metric metric() const override { return metric_; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    ++calls;
    for (auto& v : r2) v = std::exp(-0.5 * v);
  }
  bool has_log_map() const override { return log_; }
  void log_map(Matrix& r2) const override {
    ++calls;
    for (auto& v : r2) v = -0.5 * v;
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
  mutable std::atomic<int> calls{0};

 private:
  Metric metric_;
  bool log_;
};

// exp(-r2 / 2) declared a Gaussian activation (the fused rows and single storage take it).
class GaussianActivation : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (auto& v : r2) v = std::exp(-0.5 * v);
  }
  bool gaussian_activation() const override { return true; }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

Matrix brute_design(const Matrix& x, const Centres& c, bool use_shape, bool log_domain) {
  const Matrix r2 = test::brute_squared_distances(x, c, use_shape);
  const std::size_t n = x.shape(0), m = c.count();
  Matrix phi = xt::ones<double>({n, log_domain ? m : m + 1});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      phi(i, j) = log_domain ? -0.5 * r2(i, j) : std::exp(-0.5 * r2(i, j));
  return phi;
}

void require_close(const Matrix& got, const Matrix& want, std::size_t row_offset = 0) {
  REQUIRE(got.shape(1) == want.shape(1));
  for (std::size_t i = 0; i < got.shape(0); ++i)
    for (std::size_t j = 0; j < got.shape(1); ++j) {
      INFO("row " << row_offset + i << " column " << j);
      REQUIRE(got(i, j) == Approx(want(row_offset + i, j)).epsilon(1e-12).margin(1e-14));
    }
}

}  // namespace

TEST_CASE("blocked design matrix equals the materialised and brute-force matrices",
          "[design-matrix]") {
  std::mt19937_64 rng(42);
  const Matrix x = test::random_matrix(103, 4, rng);
  const Centres c = test::random_centres(6, 4, Shape::None, rng);
  const Matrix want = brute_design(x, c, false, false);
  CountingBasis basis(Metric::Euclidean);
  for (std::size_t block : {std::size_t(1), std::size_t(7), std::size_t(64), std::size_t(1000)})
    for (std::size_t cache : {std::size_t(0), std::size_t(256) << 20}) {
      INFO("block rows " << block << " cache bytes " << cache);
      const DesignMatrix phi(x, c, basis, false, cache, block);
      REQUIRE(phi.rows() == 103);
      REQUIRE(phi.cols() == 7);
      REQUIRE(phi.block_rows() == block);
      REQUIRE(phi.block_count() == (103 + block - 1) / block);
      for (int pass = 0; pass < 2; ++pass) {
        std::size_t next = 0, visits = 0;
        basis.calls = 0;
        phi.for_each_block([&](std::size_t first, const Matrix& b) {
          REQUIRE(first == next);  // consecutive, in order
          REQUIRE(b.shape(0) == std::min(block, 103 - first));
          require_close(b, want, first);
          next += b.shape(0);
          ++visits;
        });
        REQUIRE(next == 103);
        REQUIRE(visits == phi.block_count());
        // The second pass comes from the cache when it is allowed, and is recomputed otherwise.
        const bool from_cache = pass == 1 && cache != 0;
        REQUIRE(basis.calls == (from_cache ? 0 : int(phi.block_count())));
      }
      require_close(phi.materialise(), want);
    }
}

TEST_CASE("compute_block gives any range of rows", "[design-matrix]") {
  std::mt19937_64 rng(43);
  const Matrix x = test::random_matrix(50, 3, rng);
  const Centres c = test::random_centres(5, 3, Shape::None, rng);
  CountingBasis basis(Metric::Euclidean);
  const DesignMatrix phi(x, c, basis, false, 0, 16);
  const Matrix want = brute_design(x, c, false, false);
  Matrix out;
  phi.compute_block(5, 9, out);
  REQUIRE(out.shape(0) == 9);
  require_close(out, want, 5);
  phi.compute_block(0, 50, out);
  require_close(out, want);
  REQUIRE_THROWS_AS(phi.compute_block(45, 6, out), Error);
}

TEST_CASE("log-domain design matrix has no bias column and holds log phi", "[design-matrix]") {
  std::mt19937_64 rng(44);
  const Matrix x = test::random_matrix(30, 2, rng);
  const Centres c = test::random_centres(4, 2, Shape::Diagonal, rng);
  CountingBasis basis(Metric::Shape);
  const DesignMatrix phi(x, c, basis, true, std::size_t(256) << 20, 8);
  REQUIRE(phi.cols() == 4);
  require_close(phi.materialise(), brute_design(x, c, true, true));
  // The shape metric reaches the basis: Mahalanobis under the diagonal variances.
  const DesignMatrix linear(x, c, basis, false, 0, 8);
  require_close(linear.materialise(), brute_design(x, c, true, false));
}

TEST_CASE("design matrix errors say what is wrong", "[design-matrix]") {
  std::mt19937_64 rng(45);
  const Matrix x = test::random_matrix(10, 3, rng);
  const Centres c = test::random_centres(4, 2, Shape::None, rng);
  CountingBasis basis(Metric::Euclidean, false);
  REQUIRE_THROWS_AS(DesignMatrix(x, c, basis), ShapeError);
  const Matrix x2 = test::random_matrix(10, 2, rng);
  REQUIRE_THROWS_WITH(DesignMatrix(x2, c, basis, true), Catch::Contains("log_map"));
}

TEST_CASE("single storage: every block is the double block rounded to float, cached or not",
          "[design-matrix]") {
  std::mt19937_64 rng(8);
  const Matrix x = test::random_matrix(150, 3, rng);
  const Centres c = test::random_centres(9, 3, Shape::None, rng);
  CountingBasis plain(Metric::Euclidean);
  CHECK_FALSE(DesignMatrix(x, c, plain, false).use_single_storage());  // not a Gaussian activation
  GaussianActivation basis;
  const DesignMatrix exact(x, c, basis, false, 0, 32);
  Matrix want = exact.materialise();
  for (double& v : want) v = double(float(v));
  for (const std::size_t cache : {std::size_t(0), std::size_t(256) << 20}) {
    INFO("cache bytes " << cache);
    DesignMatrix phi(x, c, basis, false, cache, 32);
    REQUIRE(phi.use_single_storage());
    REQUIRE(phi.single_storage());
    for (int pass = 0; pass < 2; ++pass) {
      phi.for_each_block([&](std::size_t first, const Matrix& b) {
        for (std::size_t i = 0; i < b.shape(0); ++i)
          for (std::size_t j = 0; j < b.shape(1); ++j)
            if (b(i, j) != want(first + i, j))
              FAIL("pass " << pass << ", row " << first + i << ", column " << j);
      });
      CHECK(phi.cached() == (cache != 0));
    }
    Matrix block;
    phi.compute_block(40, 17, block);
    for (std::size_t i = 0; i < 17; ++i)
      for (std::size_t j = 0; j < block.shape(1); ++j) REQUIRE(block(i, j) == want(40 + i, j));
    // Once cached, the normal products read the floats: the bits of the rounded double block's.
    if (cache == 0) {
      CHECK_FALSE(phi.fused_normal_products());
      CHECK_THROWS_AS(phi.add_normal_products(0, 32, want.data(), 1, block.data()), Error);
      continue;
    }
    REQUIRE(phi.fused_normal_products());
    const std::size_t p = want.shape(1), k = 2;
    std::vector<double> xt(k * p), got(k * p, 0.0), expect(k * p, 0.0);
    for (double& v : xt) v = std::uniform_real_distribution<double>(-1, 1)(rng);
    phi.add_normal_products(128, 22, xt.data(), k, got.data());  // the last, short block
    normal_rows(want.data() + 128 * p, 22, p, xt.data(), k, expect.data());
    CHECK(got == expect);
    CHECK_THROWS_AS(phi.add_normal_products(100, 22, xt.data(), k, got.data()), Error);
  }
}
