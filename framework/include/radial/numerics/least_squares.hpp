#pragma once
// Least squares by SVD (LAPACK dgelsd) with a rank report, and the symmetric positive
// semi-definite solve used for normal equations accumulated block by block.

#include <cstddef>

#include "radial/core/types.hpp"

namespace radial {

struct LeastSquaresSolution {
  Matrix x;                 // n x k solution (minimum norm when rank deficient)
  std::size_t rank = 0;     // numerical rank used
  std::size_t size = 0;     // n, so rank < size means rank deficient
  Vector singular_values;   // of A (or eigenvalues of the SPD matrix), descending
  double rcond = 0;         // singular values below rcond * s_max were treated as 0
};

// min ||A x - B||_F over x, A: m x n, B: m x k. rcond < 0 means machine epsilon * max(m, n).
LeastSquaresSolution solve_least_squares(const Matrix& a, const Matrix& b, double rcond = -1);

// Solves S x = B for symmetric positive semi-definite S (n x n) by its eigendecomposition,
// pseudo-inverting eigenvalues below rcond * lambda_max (rcond < 0: epsilon * n). Used for
// (Phi^T Phi + alpha I) w = Phi^T T and for Newton steps after Cholesky failed.
LeastSquaresSolution solve_symmetric_psd(const Matrix& s, const Matrix& b, double rcond = -1);

// Cholesky solve of S x = B; returns false (x untouched) when S is not positive definite.
bool solve_cholesky(const Matrix& s, const Matrix& b, Matrix& x);

// A := L^{-1} A L^{-T}, then symmetrised (the mean of A(i, j) and A(j, i)): A is n x n
// symmetric and column-major, L the lower Cholesky factor of a metric S = L L^T in the lower
// triangle of a column-major n x n array (LAPACK dpotrf's 'L'). The whitening of a system in the
// metric of a penalty (the selection's ridge in K_MM, the least-squares output's factor).
void whiten_by_factor(double* a, const double* lower, std::size_t n);

}  // namespace radial
