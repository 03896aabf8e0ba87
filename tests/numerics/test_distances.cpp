// SquaredDistances against brute-force loops (Gauss-Jordan inverses for full covariances), for
// every shape, several dimensions and several row-block sizes.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <radial/core/errors.hpp>
#include <radial/exec/blas_threads.hpp>
#include <radial/numerics/distances.hpp>

#include "brute_force.hpp"

using namespace radial;
using radial::test::brute_log_det;
using radial::test::brute_squared_distances;
using radial::test::random_centres;
using radial::test::random_matrix;
using radial::test::rows_of;

namespace {

// GEMM identity and whitening round at ~1e-15 relative to ||x||^2 + ||c||^2 scaled by the
// inverse variances; 1e-10 relative / 1e-10 absolute leaves a wide margin and still catches any
// wrong term (errors of O(1)).
void require_close(const Matrix& got, const Matrix& want) {
  REQUIRE(got.shape(0) == want.shape(0));
  REQUIRE(got.shape(1) == want.shape(1));
  for (std::size_t i = 0; i < got.shape(0); ++i)
    for (std::size_t j = 0; j < got.shape(1); ++j) {
      INFO("row " << i << " centre " << j);
      REQUIRE(got(i, j) == Approx(want(i, j)).epsilon(1e-10).margin(1e-10));
    }
}

}  // namespace

TEST_CASE("squared distances match brute force for every shape and block size", "[distances]") {
  std::mt19937_64 rng(20240611);
  const Shape shapes[] = {Shape::None, Shape::Spherical, Shape::Diagonal, Shape::Full};
  // d = 7 with 80 centres makes three whitening chunks (the last one padded) for Full.
  const std::size_t dims[] = {1, 3, 7};
  const std::size_t counts[] = {1, 5, 80};
  for (Shape shape : shapes)
    for (std::size_t d : dims)
      for (std::size_t m : counts) {
        const Centres c = random_centres(m, d, shape, rng);
        const Matrix x = random_matrix(37, d, rng, 1.5, 0.3);
        const Metric metric = shape == Shape::None ? Metric::Euclidean : Metric::Shape;
        const SquaredDistances distances(c, metric);
        const Matrix want = brute_squared_distances(x, c, true);
        for (std::size_t block : {std::size_t(1), std::size_t(4), std::size_t(16), std::size_t(37)}) {
          INFO("shape " << to_string(shape) << " d " << d << " M " << m << " block " << block);
          Matrix got = Matrix::from_shape({37, m});
          Matrix r2;
          for (std::size_t first = 0; first < 37; first += block) {
            const std::size_t count = std::min(block, 37 - first);
            distances.compute(rows_of(x, first, count), r2);
            REQUIRE(r2.shape(0) == count);
            for (std::size_t i = 0; i < count; ++i)
              for (std::size_t j = 0; j < m; ++j) got(first + i, j) = r2(i, j);
          }
          require_close(got, want);
        }
        const Vector& log_det = distances.log_determinants();
        REQUIRE(log_det.size() == m);
        for (std::size_t j = 0; j < m; ++j) {
          INFO("shape " << to_string(shape) << " centre " << j);
          if (shape == Shape::None) REQUIRE(log_det(j) == 0.0);
          else REQUIRE(log_det(j) == Approx(brute_log_det(c, j)).epsilon(1e-10).margin(1e-12));
        }
      }
}

TEST_CASE("Euclidean metric ignores the centres' shapes", "[distances]") {
  std::mt19937_64 rng(7);
  const Centres c = random_centres(4, 3, Shape::Full, rng);
  const Matrix x = random_matrix(9, 3, rng);
  Matrix r2;
  SquaredDistances(c, Metric::Euclidean).compute(x, r2);
  require_close(r2, brute_squared_distances(x, c, false));
}

TEST_CASE("distances of a centre to itself are clamped at zero", "[distances]") {
  // Far from the origin the identity ||x||^2 + ||c||^2 - 2 x.c cancels catastrophically; the
  // result must still be >= 0 and tiny relative to ||x||^2 = 3e8.
  std::mt19937_64 rng(11);
  for (Shape shape : {Shape::None, Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    Centres c = random_centres(6, 3, shape, rng);
    c.means += 1e4;
    Matrix r2;
    SquaredDistances(c, shape == Shape::None ? Metric::Euclidean : Metric::Shape)
        .compute(c.means, r2);
    for (std::size_t j = 0; j < 6; ++j) {
      INFO("shape " << to_string(shape) << " centre " << j);
      REQUIRE(r2(j, j) >= 0.0);
      REQUIRE(r2(j, j) < 1e-6 * 3e8);
    }
  }
}

TEST_CASE("squared_euclidean matches brute force", "[distances]") {
  std::mt19937_64 rng(3);
  const Matrix a = random_matrix(13, 4, rng), b = random_matrix(6, 4, rng);
  Centres c;
  c.means = b;
  require_close(squared_euclidean(a, b), brute_squared_distances(a, c, false));
  REQUIRE_THROWS_AS(squared_euclidean(a, random_matrix(2, 3, rng)), ShapeError);
}

TEST_CASE("distance errors name the centre and what is wrong", "[distances]") {
  std::mt19937_64 rng(5);
  Centres c = random_centres(3, 2, Shape::Full, rng);
  // Centre 2: eigenvalues 3 and -1.
  c.covariances(2, 0, 0) = 1.0;
  c.covariances(2, 1, 1) = 1.0;
  c.covariances(2, 0, 1) = c.covariances(2, 1, 0) = 2.0;
  REQUIRE_THROWS_WITH(SquaredDistances(c, Metric::Shape),
                      Catch::Contains("centre 2") && Catch::Contains("not positive definite"));

  Centres none = random_centres(3, 2, Shape::None, rng);
  REQUIRE_THROWS_AS(SquaredDistances(none, Metric::Shape), ShapeError);
  REQUIRE_NOTHROW(SquaredDistances(none, Metric::Euclidean));

  Centres spherical = random_centres(3, 2, Shape::Spherical, rng);
  spherical.variances(1) = 0.0;
  REQUIRE_THROWS_WITH(SquaredDistances(spherical, Metric::Shape), Catch::Contains("centre 1"));

  Centres diagonal = random_centres(3, 2, Shape::Diagonal, rng);
  diagonal.diagonal(0, 1) = -1.0;
  REQUIRE_THROWS_WITH(SquaredDistances(diagonal, Metric::Shape),
                      Catch::Contains("centre 0") && Catch::Contains("dimension 1"));

  const SquaredDistances ok(random_centres(3, 2, Shape::None, rng), Metric::Euclidean);
  Matrix r2;
  REQUIRE_THROWS_AS(ok.compute(random_matrix(4, 3, rng), r2), ShapeError);
}

TEST_CASE("compute() is thread-safe: concurrent blocks equal brute force", "[distances]") {
  // Per-thread scratch buffers: threads working on different blocks must not interfere.
  std::mt19937_64 rng(13);
  const int saved = blas_threads();
  set_blas_threads(1);
  for (Shape shape : {Shape::Diagonal, Shape::Full}) {
    const Centres c = random_centres(40, 6, shape, rng);
    const Matrix x = random_matrix(400, 6, rng);
    const Matrix want = brute_squared_distances(x, c, true);
    const SquaredDistances distances(c, Metric::Shape);
    std::vector<Matrix> results(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        Matrix r2;
        Matrix& out = results[t];
        out = Matrix::from_shape({100, 40});
        // Repeat so the threads overlap in time.
        for (int rep = 0; rep < 20; ++rep)
          for (std::size_t first = 0; first < 100; first += 25 + t) {
            const std::size_t count = std::min<std::size_t>(25 + t, 100 - first);
            distances.compute(rows_of(x, t * 100 + first, count), r2);
            for (std::size_t i = 0; i < count; ++i)
              for (std::size_t j = 0; j < 40; ++j) out(first + i, j) = r2(i, j);
          }
      });
    for (auto& th : threads) th.join();
    for (std::size_t t = 0; t < 4; ++t) {
      INFO("shape " << to_string(shape) << " thread " << t);
      require_close(results[t], rows_of(want, t * 100, 100));
    }
  }
  set_blas_threads(saved);
}
