#pragma once
// Independent reference computations for the numerics tests: plain loops, Gauss-Jordan inverses
// and determinants by elimination, nothing shared with the code under test.

#include <cmath>
#include <random>
#include <vector>

#include <radial/core/centres.hpp>
#include <radial/core/types.hpp>

namespace radial::test {

inline Matrix random_matrix(std::size_t rows, std::size_t cols, std::mt19937_64& rng,
                            double scale = 1.0, double offset = 0.0) {
  std::normal_distribution<double> normal(offset, scale);
  Matrix m = Matrix::from_shape({rows, cols});
  for (auto& v : m) v = normal(rng);
  return m;
}

// A random symmetric positive definite d x d matrix A A^T + 0.1 I.
inline std::vector<std::vector<double>> random_spd(std::size_t d, std::mt19937_64& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<double>> a(d, std::vector<double>(d)), s(d, std::vector<double>(d));
  for (auto& row : a)
    for (auto& v : row) v = normal(rng);
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) {
      double sum = i == j ? 0.1 : 0.0;
      for (std::size_t k = 0; k < d; ++k) sum += a[i][k] * a[j][k];
      s[i][j] = sum;
    }
  return s;
}

// Inverse and log-determinant by Gauss-Jordan elimination with partial pivoting.
inline std::vector<std::vector<double>> inverse(std::vector<std::vector<double>> a,
                                                double* log_det = nullptr) {
  const std::size_t d = a.size();
  std::vector<std::vector<double>> inv(d, std::vector<double>(d, 0.0));
  for (std::size_t i = 0; i < d; ++i) inv[i][i] = 1.0;
  double ld = 0;
  for (std::size_t col = 0; col < d; ++col) {
    std::size_t pivot = col;
    for (std::size_t r = col + 1; r < d; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[pivot][col])) pivot = r;
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const double p = a[col][col];
    ld += std::log(std::fabs(p));
    for (std::size_t k = 0; k < d; ++k) {
      a[col][k] /= p;
      inv[col][k] /= p;
    }
    for (std::size_t r = 0; r < d; ++r) {
      if (r == col) continue;
      const double f = a[r][col];
      for (std::size_t k = 0; k < d; ++k) {
        a[r][k] -= f * a[col][k];
        inv[r][k] -= f * inv[col][k];
      }
    }
  }
  if (log_det) *log_det = ld;
  return inv;
}

// (x - c)^T S^{-1} (x - c) with S^{-1} given.
inline double quadratic_form(const double* x, const double* c,
                             const std::vector<std::vector<double>>& s_inv) {
  const std::size_t d = s_inv.size();
  double sum = 0;
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j < d; ++j) sum += (x[i] - c[i]) * s_inv[i][j] * (x[j] - c[j]);
  return sum;
}

// Brute-force squared distances under the centres' shape (None: Euclidean).
inline Matrix brute_squared_distances(const Matrix& x, const Centres& c, bool use_shape) {
  const std::size_t n = x.shape(0), m = c.count(), d = c.dim();
  Matrix r2 = Matrix::from_shape({n, m});
  for (std::size_t j = 0; j < m; ++j) {
    std::vector<std::vector<double>> s_inv(d, std::vector<double>(d, 0.0));
    const Shape shape = use_shape ? c.shape : Shape::None;
    for (std::size_t a = 0; a < d; ++a) {
      if (shape == Shape::None) s_inv[a][a] = 1.0;
      if (shape == Shape::Spherical) s_inv[a][a] = 1.0 / c.variances(j);
      if (shape == Shape::Diagonal) s_inv[a][a] = 1.0 / c.diagonal(j, a);
    }
    if (shape == Shape::Full) {
      std::vector<std::vector<double>> s(d, std::vector<double>(d));
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) s[a][b] = c.covariances(j, a, b);
      s_inv = inverse(s);
    }
    for (std::size_t i = 0; i < n; ++i)
      r2(i, j) = quadratic_form(&x(i, 0), &c.means(j, 0), s_inv);
  }
  return r2;
}

// log |S_j| by elimination.
inline double brute_log_det(const Centres& c, std::size_t j) {
  const std::size_t d = c.dim();
  std::vector<std::vector<double>> s(d, std::vector<double>(d, 0.0));
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b) {
      if (c.shape == Shape::Spherical) s[a][b] = a == b ? c.variances(j) : 0.0;
      if (c.shape == Shape::Diagonal) s[a][b] = a == b ? c.diagonal(j, a) : 0.0;
      if (c.shape == Shape::Full) s[a][b] = c.covariances(j, a, b);
    }
  double ld = 0;
  inverse(s, &ld);
  return ld;
}

// Centres with random means and random shapes of the given kind.
inline Centres random_centres(std::size_t m, std::size_t d, Shape shape, std::mt19937_64& rng) {
  Centres c;
  c.means = random_matrix(m, d, rng);
  c.shape = shape;
  std::uniform_real_distribution<double> variance(0.2, 3.0);
  if (shape == Shape::Spherical) {
    c.variances = Vector::from_shape({m});
    for (auto& v : c.variances) v = variance(rng);
  } else if (shape == Shape::Diagonal) {
    c.diagonal = Matrix::from_shape({m, d});
    for (auto& v : c.diagonal) v = variance(rng);
  } else if (shape == Shape::Full) {
    c.covariances = Tensor3::from_shape({m, d, d});
    for (std::size_t j = 0; j < m; ++j) {
      const auto s = random_spd(d, rng);
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) c.covariances(j, a, b) = s[a][b];
    }
  }
  return c;
}

// Rows [first, first + count) of x as their own matrix.
inline Matrix rows_of(const Matrix& x, std::size_t first, std::size_t count) {
  Matrix b = Matrix::from_shape({count, x.shape(1)});
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t k = 0; k < x.shape(1); ++k) b(i, k) = x(first + i, k);
  return b;
}

}  // namespace radial::test
