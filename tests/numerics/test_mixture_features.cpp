// The feature form of the mixture E-step: small_gemm against a plain triple loop, full-covariance
// distances from quadratic features against the whitened form and brute force, and one E-step +
// M-step of a 3-D mixture with covariances whose inverses and determinants are exact
// rationals (S = A A^T for integer lower-triangular A), against responsibilities, means and
// covariances evaluated point by point.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <radial/numerics/distances.hpp>
#include <radial/numerics/gaussian.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/numerics/small_gemm.hpp>

#include "brute_force.hpp"

using namespace radial;
using radial::test::brute_squared_distances;
using radial::test::random_centres;
using radial::test::random_matrix;

TEST_CASE("small_gemm equals a triple loop for both layouts, tails and accumulation",
          "[mixture-features]") {
  std::mt19937_64 rng(41);
  std::normal_distribution<double> normal;
  INFO("kernel " << small_gemm_kernel());
  for (std::size_t m : {1, 5, 6, 7, 13, 64})
    for (std::size_t n : {1, 8, 9, 31, 32, 33, 70})
      for (std::size_t k : {1, 3, 153}) {
        std::vector<double> a(m * k), b(k * n), c(m * n), start(m * n);
        for (auto& v : a) v = normal(rng);
        for (auto& v : b) v = normal(rng);
        for (auto& v : start) v = normal(rng);
        for (bool blas : {false, true})
          for (bool transposed : {false, true})
            for (bool accumulate : {false, true}) {
              INFO("m " << m << " n " << n << " k " << k << " transposed " << transposed
                        << " accumulate " << accumulate << " blas " << blas);
              // A(i, kk) from a as row-major m x k, or as the transpose of a row-major k x m.
              const std::size_t a_row = transposed ? 1 : k, a_col = transposed ? m : 1;
              c = start;
              (blas ? small_gemm_blas : small_gemm)(m, n, k, a.data(), a_row, a_col, b.data(), n,
                                                    c.data(), n, accumulate);
              for (std::size_t i = 0; i < m; ++i)
                for (std::size_t j = 0; j < n; ++j) {
                  double want = accumulate ? start[i * n + j] : 0.0, scale = std::fabs(want);
                  for (std::size_t kk = 0; kk < k; ++kk) {
                    const double t = a[i * a_row + kk * a_col] * b[kk * n + j];
                    want += t;
                    scale += std::fabs(t);
                  }
                  REQUIRE(std::fabs(c[i * n + j] - want) <= 1e-14 * scale);
                }
            }
      }
}

TEST_CASE("small_gemm_upper_gram adds A^T A to the upper triangle, the lower one untouched",
          "[mixture-features]") {
  // Panels of 64 rows of C: sizes below, at and past one and two panels; a row length past the
  // columns (a block's first columns) and C inside a larger array.
  std::mt19937_64 rng(43);
  std::normal_distribution<double> normal;
  INFO("kernel " << small_gemm_kernel() << ", beats BLAS " << small_gemm_beats_blas());
  for (std::size_t n : {1, 7, 63, 64, 65, 130})
    for (std::size_t rows : {1, 5, 200}) {
      const std::size_t lda = n + 3, ldc = n + 2;
      std::vector<double> a(rows * lda), c(n * ldc), start(n * ldc);
      for (auto& v : a) v = normal(rng);
      for (auto& v : start) v = normal(rng);
      c = start;
      small_gemm_upper_gram(a.data(), rows, n, lda, c.data(), ldc);
      INFO("n " << n << " rows " << rows);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i; j < n; ++j) {
          double want = start[i * ldc + j], scale = std::fabs(want);
          for (std::size_t r = 0; r < rows; ++r) {
            const double t = a[r * lda + i] * a[r * lda + j];
            want += t;
            scale += std::fabs(t);
          }
          REQUIRE(std::fabs(c[i * ldc + j] - want) <= 1e-14 * scale);
        }
      // Below the diagonal only the panels' diagonal blocks may be written; past them, and
      // the padding columns, nothing.
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < ldc; ++j)
          if ((j < i && j / 64 != i / 64) || j >= n) REQUIRE(c[i * ldc + j] == start[i * ldc + j]);
    }
}

TEST_CASE("small_gemm_clamped stores max(0, A B) to both outputs, equal to small_gemm's values",
          "[mixture-features]") {
  std::mt19937_64 rng(43);
  std::normal_distribution<double> normal;
  INFO("kernel " << small_gemm_kernel());
  for (std::size_t m : {1, 6, 13})
    for (std::size_t n : {1, 9, 32, 70})
      for (std::size_t k : {1, 21, 153}) {  // 153: several chunks of k, clamped on the last
        INFO("m " << m << " n " << n << " k " << k);
        std::vector<double> a(m * k), b(k * n), plain(m * n), c(m * n, 7.0), copy(m * n, 7.0);
        for (auto& v : a) v = normal(rng);
        for (auto& v : b) v = normal(rng);
        small_gemm(m, n, k, a.data(), k, 1, b.data(), n, plain.data(), n, false);
        small_gemm_clamped(m, n, k, a.data(), k, 1, b.data(), n, c.data(), copy.data(), n);
        std::size_t clamped = 0;
        for (std::size_t i = 0; i < m * n; ++i) {
          REQUIRE(c[i] == std::max(0.0, plain[i]));  // the same sums, in the same order
          REQUIRE(copy[i] == c[i]);
          clamped += plain[i] < 0 ? 1 : 0;
        }
        if (m * n >= 9) CHECK(clamped > 0);  // the clamp was exercised
      }
}

TEST_CASE("quadratic-feature full distances agree with the whitened form and brute force",
          "[mixture-features]") {
  std::mt19937_64 rng(20250611);
  for (std::size_t d : {1, 2, 3, 7, 16})
    for (std::size_t m : {1, 5, 80}) {
      INFO("d " << d << " M " << m);
      Centres c = random_centres(m, d, Shape::Full, rng);
      // Scale the covariances to the spread of the means, as in a fitted mixture.
      c.covariances /= double(d);
      const Matrix x = random_matrix(50, d, rng, 1.2, 0.1);
      const SquaredDistances quadratic(c, Metric::Shape, FullForm::Quadratic);
      const SquaredDistances whitened(c, Metric::Shape, FullForm::Whitened);
      REQUIRE(quadratic.feature_count() == d * (d + 1) / 2 + d + 1);
      REQUIRE(whitened.feature_count() == 0);
      Matrix got, other;
      quadratic.compute(x, got);
      whitened.compute(x, other);
      const Matrix want = brute_squared_distances(x, c, true);
      for (std::size_t i = 0; i < x.shape(0); ++i)
        for (std::size_t j = 0; j < m; ++j) {
          INFO("row " << i << " centre " << j);
          REQUIRE(got(i, j) == Approx(other(i, j)).epsilon(1e-9).margin(1e-12));
          REQUIRE(got(i, j) == Approx(want(i, j)).epsilon(1e-9).margin(1e-12));
        }
    }
}

TEST_CASE("automatic full form falls back to whitening when the quadratic terms are huge",
          "[mixture-features]") {
  // A tight centre (variances 1e-4) 1e3 from the others: y^T P y reaches ~1e10 near it.
  std::mt19937_64 rng(5);
  Centres c = random_centres(3, 2, Shape::Full, rng);
  for (std::size_t a = 0; a < 2; ++a) {
    c.means(2, a) = 1e3;
    for (std::size_t b = 0; b < 2; ++b) c.covariances(2, a, b) = a == b ? 1e-4 : 0.0;
  }
  const SquaredDistances automatic(c, Metric::Shape);
  REQUIRE(automatic.feature_count() == 0);
  Matrix x = random_matrix(6, 2, rng, 1e-2, 1e3);
  Matrix got;
  automatic.compute(x, got);
  const Matrix want = brute_squared_distances(x, c, true);
  for (std::size_t i = 0; i < 6; ++i)
    REQUIRE(got(i, 2) == Approx(want(i, 2)).epsilon(1e-10).margin(1e-10));
  // Well-conditioned centres near each other take the quadratic form.
  Centres near = random_centres(4, 5, Shape::Full, rng);
  REQUIRE(SquaredDistances(near, Metric::Shape).feature_count() == 21);
}

namespace {

// Covariances A A^T with their exact inverses and determinants (exact rational arithmetic).
struct Known {
  double s[3][3], inv[3][3], det;
};
const Known known[] = {
    {{{4, 2, 0}, {2, 2, 1}, {0, 1, 5}},
     {{9.0 / 16, -5.0 / 8, 1.0 / 8}, {-5.0 / 8, 5.0 / 4, -1.0 / 4}, {1.0 / 8, -1.0 / 4, 1.0 / 4}},
     16},
    {{{1, -1, 1}, {-1, 5, 1}, {1, 1, 3}},
     {{7.0 / 2, 1, -3.0 / 2}, {1, 1.0 / 2, -1.0 / 2}, {-3.0 / 2, -1.0 / 2, 1}},
     4},
    {{{9, 0, 6}, {0, 1, -1}, {6, -1, 6}},
     {{5.0 / 9, -2.0 / 3, -2.0 / 3}, {-2.0 / 3, 2, 1}, {-2.0 / 3, 1, 1}},
     9},
};

double log_density(const double* x, const double* mean, const Known& k) {
  double q = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) q += (x[a] - mean[a]) * k.inv[a][b] * (x[b] - mean[b]);
  return -0.5 * (q + std::log(k.det) + 3 * std::log(2 * M_PI));
}

// Point-by-point responsibilities -> C(1), weighted means and covariances about those means.
struct Moments {
  std::vector<double> c1, mu, cov;
};

Moments full_moments(const Matrix& x, const std::vector<std::vector<double>>& r, std::size_t m) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  Moments out{std::vector<double>(m, 0.0), std::vector<double>(m * d, 0.0),
              std::vector<double>(m * d * d, 0.0)};
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      out.c1[j] += r[i][j];
      for (std::size_t a = 0; a < d; ++a) out.mu[j * d + a] += r[i][j] * x(i, a);
    }
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) out.mu[j * d + a] /= out.c1[j];
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b)
          out.cov[(j * d + a) * d + b] += r[i][j] * (x(i, a) - out.mu[j * d + a]) *
                                          (x(i, b) - out.mu[j * d + b]) / out.c1[j];
  return out;
}

// One E-step (blocks of 64 rows) and M-step; the E-step's log-likelihood goes to `ll`.
Centres one_em_step(const Matrix& x, const Centres& c, const Vector& log_w, double& ll) {
  EStepOptions opt;
  opt.block_rows = 64;
  MixtureCounts counts;
  ll = e_step(x, c, log_w, nullptr, opt, counts).log_likelihood;
  Centres next = c;
  Vector w;
  MStepOptions mopt;
  mopt.covariance_floor = 1e-12;
  m_step(counts, mopt, next, w);
  return next;
}

// One EM step from c checked against point-by-point sums: the log-likelihood against want_ll,
// every component j's mean in dimension a against mu[j d + a], and its spread by check_spread.
template <class CheckSpread>
void check_em_step(const Matrix& x, const Centres& c, const Vector& log_w, const Approx& want_ll,
                   const std::vector<double>& mu, CheckSpread check_spread) {
  double ll = 0;
  const Centres next = one_em_step(x, c, log_w, ll);
  REQUIRE(ll == want_ll);
  const std::size_t m = c.means.shape(0), d = c.means.shape(1);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) {
      INFO("component " << j << " dimension " << a);
      REQUIRE(next.means(j, a) == Approx(mu[j * d + a]).epsilon(1e-10).margin(1e-12));
      check_spread(next, j, a);
    }
}

}  // namespace

TEST_CASE("full-covariance E-step and M-step match a point-by-point 3-D mixture",
          "[mixture-features]") {
  const std::size_t m = 3, d = 3, n = 900;
  const double means[3][3] = {{0, 0, 0}, {3, -1, 2}, {-2, 4, 1}};
  const double weights[3] = {0.5, 0.3, 0.2};
  Centres c;
  c.shape = Shape::Full;
  c.means = Matrix::from_shape({m, d});
  c.covariances = Tensor3::from_shape({m, d, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) {
      c.means(j, a) = means[j][a];
      for (std::size_t b = 0; b < d; ++b) c.covariances(j, a, b) = known[j].s[a][b];
    }
  Vector log_w = Vector::from_shape({m});
  for (std::size_t j = 0; j < m; ++j) log_w(j) = std::log(weights[j]);
  std::mt19937_64 rng(77);
  Matrix x = random_matrix(n, d, rng, 2.0, 0.5);
  REQUIRE(GaussianLogDensity(c).distances().feature_count() == 10);

  // Log densities of the points, each written out.
  Matrix logn;
  GaussianLogDensity(c).compute(x, logn);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      REQUIRE(logn(i, j) == Approx(log_density(&x(i, 0), means[j], known[j])).epsilon(1e-12));

  // Responsibilities, log-likelihood, and the M-step's means and covariances, point by point.
  double want_ll = 0;
  std::vector<std::vector<double>> r(n, std::vector<double>(m));
  for (std::size_t i = 0; i < n; ++i) {
    double total = 0;
    for (std::size_t j = 0; j < m; ++j)
      total += r[i][j] = weights[j] * std::exp(log_density(&x(i, 0), means[j], known[j]));
    want_ll += std::log(total);
    for (std::size_t j = 0; j < m; ++j) r[i][j] /= total;
  }
  const auto [c1, mu, cov] = full_moments(x, r, m);

  for (std::size_t block : {std::size_t(7), std::size_t(512)}) {
    INFO("block rows " << block);
    EStepOptions opt;
    opt.block_rows = block;
    MixtureCounts counts;
    const EStepSummary s = e_step(x, c, log_w, nullptr, opt, counts);
    REQUIRE(s.log_likelihood == Approx(want_ll).epsilon(1e-12));
    Centres next = c;
    Vector w;
    MStepOptions mopt;
    mopt.covariance_floor = 1e-12;
    m_step(counts, mopt, next, w);
    for (std::size_t j = 0; j < m; ++j) {
      INFO("component " << j);
      REQUIRE(w(j) == Approx(c1[j] / double(n)).epsilon(1e-12));
      for (std::size_t a = 0; a < d; ++a) {
        REQUIRE(next.means(j, a) == Approx(mu[j * d + a]).epsilon(1e-10).margin(1e-12));
        for (std::size_t b = 0; b < d; ++b)
          REQUIRE(next.covariances(j, a, b) ==
                  Approx(cov[(j * d + a) * d + b]).epsilon(1e-10).margin(1e-12));
      }
    }
    // Without statistics: the same likelihood, counts left at zero.
    opt.statistics = false;
    const EStepSummary only = e_step(x, c, log_w, nullptr, opt, counts);
    REQUIRE(only.log_likelihood == s.log_likelihood);
    for (std::size_t j = 0; j < m; ++j) REQUIRE(counts.c1(j) == 0.0);
  }
}

TEST_CASE("diagonal E-step and M-step match a point-by-point mixture", "[mixture-features]") {
  const std::size_t m = 4, d = 5, n = 700;
  std::mt19937_64 rng(78);
  Centres c = random_centres(m, d, Shape::Diagonal, rng);
  Vector log_w = Vector::from_shape({m});
  for (std::size_t j = 0; j < m; ++j) log_w(j) = std::log((j + 1.0) / 10.0);
  const Matrix x = random_matrix(n, d, rng, 1.5, 0.2);
  std::vector<double> c1(m, 0.0), mu(m * d, 0.0), var(m * d, 0.0);
  std::vector<std::vector<double>> r(n, std::vector<double>(m));
  double want_ll = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double total = 0;
    for (std::size_t j = 0; j < m; ++j) {
      double l = log_w(j) - 0.5 * double(d) * std::log(2 * M_PI);
      for (std::size_t a = 0; a < d; ++a) {
        const double t = x(i, a) - c.means(j, a);
        l -= 0.5 * (t * t / c.diagonal(j, a) + std::log(c.diagonal(j, a)));
      }
      total += r[i][j] = std::exp(l);
    }
    want_ll += std::log(total);
    for (std::size_t j = 0; j < m; ++j) {
      r[i][j] /= total;
      c1[j] += r[i][j];
      for (std::size_t a = 0; a < d; ++a) mu[j * d + a] += r[i][j] * x(i, a);
    }
  }
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) mu[j * d + a] /= c1[j];
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t a = 0; a < d; ++a) {
        const double t = x(i, a) - mu[j * d + a];
        var[j * d + a] += r[i][j] * t * t / c1[j];
      }
  check_em_step(x, c, log_w, Approx(want_ll).epsilon(1e-12), mu,
                [&](const Centres& next, std::size_t j, std::size_t a) {
                  REQUIRE(next.diagonal(j, a) == Approx(var[j * d + a]).epsilon(1e-9));
                });
}

TEST_CASE("the discriminative E-step's counts equal two ordinary E-steps", "[mixture-features]") {
  // Numerator: each row responsible to its class's components (weights w_jg); denominator: all
  // components (weights P(y) w_jg) -- paper 002, fig. 2.
  std::mt19937_64 rng(79);
  const std::size_t m = 6, d = 3, n = 500, classes = 2;
  for (Shape shape : {Shape::Diagonal, Shape::Full}) {
    INFO("shape " << to_string(shape));
    Centres c = random_centres(m, d, shape, rng);
    c.owner = Labels::from_shape({m});
    for (std::size_t j = 0; j < m; ++j) c.owner(j) = std::int64_t(j % classes);
    const Matrix x = random_matrix(n, d, rng, 1.5);
    Labels y = Labels::from_shape({n});
    for (std::size_t i = 0; i < n; ++i) y(i) = std::int64_t((i * 7) % classes);
    Vector lw_num = Vector::from_shape({m}), lw_den = Vector::from_shape({m});
    for (std::size_t j = 0; j < m; ++j) {
      lw_num(j) = std::log(1.0 / 3.0);
      lw_den(j) = std::log(0.5 / 3.0);
    }
    EStepOptions opt;
    opt.block_rows = 128;
    MixtureCounts num, den, want_num, want_den;
    const DiscriminativeSummary s =
        e_step_discriminative(x, y, c, lw_num, lw_den, opt, num, den);
    const EStepSummary sn = e_step(x, c, lw_num, &y, opt, want_num);
    const EStepSummary sd = e_step(x, c, lw_den, nullptr, opt, want_den);
    REQUIRE(s.log_numerator == Approx(sn.log_likelihood).epsilon(1e-12));
    REQUIRE(s.log_denominator == Approx(sd.log_likelihood).epsilon(1e-12));
    for (const auto& [got, want] : {std::pair{&num, &want_num}, std::pair{&den, &want_den}}) {
      for (std::size_t j = 0; j < m; ++j) {
        REQUIRE(got->c1(j) == Approx(want->c1(j)).epsilon(1e-12));
        for (std::size_t a = 0; a < d; ++a) {
          REQUIRE(got->cx(j, a) == Approx(want->cx(j, a)).epsilon(1e-12).margin(1e-12));
          if (shape == Shape::Diagonal)
            REQUIRE(got->scatter_diagonal(j, a) == Approx(want->scatter_diagonal(j, a)).epsilon(1e-12));
          else
            for (std::size_t b = 0; b < d; ++b)
              REQUIRE(got->scatter(j, a, b) ==
                      Approx(want->scatter(j, a, b)).epsilon(1e-12).margin(1e-12));
        }
      }
    }
  }
}

TEST_CASE("full E-step and M-step on the whitened fallback match point-by-point sums",
          "[mixture-features]") {
  // A tight component (variances 1e-4) 1e3 from the others makes the quadratic form's terms
  // too large, so the densities are whitened and the counts taken about each component's mean.
  std::mt19937_64 rng(80);
  const std::size_t m = 3, d = 2, n = 400;
  Centres c = random_centres(m, d, Shape::Full, rng);
  for (std::size_t a = 0; a < d; ++a) {
    c.means(2, a) = 1e3;
    for (std::size_t b = 0; b < d; ++b) c.covariances(2, a, b) = a == b ? 1e-4 : 0.5e-4;
  }
  REQUIRE(GaussianLogDensity(c).distances().feature_count() == 0);
  Matrix x = random_matrix(n, d, rng, 1.0);
  for (std::size_t i = 0; i < n; i += 4)
    for (std::size_t a = 0; a < d; ++a) x(i, a) = 1e3 + 1e-2 * x(i, a);
  Vector log_w = Vector::from_shape({m});
  for (std::size_t j = 0; j < m; ++j) log_w(j) = std::log(1.0 / 3.0);
  const Matrix r2 = brute_squared_distances(x, c, true);
  std::vector<std::vector<double>> r(n, std::vector<double>(m));
  double want_ll = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> l(m);
    double mx = -INFINITY;
    for (std::size_t j = 0; j < m; ++j) {
      l[j] = log_w(j) - 0.5 * (r2(i, j) + radial::test::brute_log_det(c, j) +
                               double(d) * std::log(2 * M_PI));
      mx = std::max(mx, l[j]);
    }
    double total = 0;
    for (std::size_t j = 0; j < m; ++j) total += r[i][j] = std::exp(l[j] - mx);
    want_ll += mx + std::log(total);
    for (std::size_t j = 0; j < m; ++j) r[i][j] /= total;
  }
  const auto [c1, mu, cov] = full_moments(x, r, m);
  check_em_step(x, c, log_w, Approx(want_ll).epsilon(1e-10), mu,
                [&, &cov = cov](const Centres& next, std::size_t j, std::size_t a) {
                  for (std::size_t b = 0; b < d; ++b)
                    REQUIRE(next.covariances(j, a, b) ==
                            Approx(cov[(j * d + a) * d + b]).epsilon(1e-8).margin(1e-14));
                });
}
