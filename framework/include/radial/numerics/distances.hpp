#pragma once
// Blocked squared distances by the GEMM identity  ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c,
// Euclidean or Mahalanobis under the centres' shapes:
//   Spherical: ||x - c_j||^2 / sigma_j^2
//   Diagonal:  sum_d (x_d - c_jd)^2 / s_jd       (one GEMM on x^2 and one on x, scaled)
//   Full:      ||L_j^{-1} (x - c_j)||^2,  S_j = L_j L_j^T   (Cholesky-whitened GEMM per centre)
// Per-centre factors are computed once in the constructor; compute() is const and thread-safe.
// Results are clamped at 0 (the identity can round slightly negative).

#include <memory>

#include "radial/basis.hpp"
#include "radial/centres.hpp"
#include "radial/types.hpp"

namespace radial {

class SquaredDistances {
 public:
  // Throws ShapeError if metric is Shape and the centres have no shape, or a covariance is
  // not positive definite (the message names the centre).
  SquaredDistances(const Centres& centres, Metric metric);
  ~SquaredDistances();
  SquaredDistances(SquaredDistances&&) noexcept;
  SquaredDistances& operator=(SquaredDistances&&) noexcept;

  // r2 (resized to x_block.rows x M) = squared distances from each row of x_block to each centre.
  void compute(const Matrix& x_block, Matrix& r2) const;

  // log |S_j| for each centre (0 for Euclidean), for Gaussian normalising constants.
  const Vector& log_determinants() const;

  std::size_t count() const;
  std::size_t dim() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: all N x M squared Euclidean distances between rows of a and rows of b.
Matrix squared_euclidean(const Matrix& a, const Matrix& b);

}  // namespace radial
