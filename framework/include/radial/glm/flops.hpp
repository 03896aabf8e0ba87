#pragma once
// Analytical floating-point operation counts, so that runs report flops as Nabney's papers do
// (papers 000/003, tables 1-4, counted there with Matlab's `flops`). One multiply or add is one
// flop; exp, log and a division count one each. Counts follow the operations Radial performs,
// not the cheapest possible ones, and LAPACK factorisations use the textbook leading terms
// (Golub & Van Loan): they are estimates of the same order as Matlab 5's counter, so ratios
// between optimisers are meaningful, absolute values only roughly comparable with the paper.

#include <cstddef>

namespace radial::glm::flops {

// C (m x n) = A (m x k) B (k x n): one multiply and one add per term.
inline double gemm(std::size_t m, std::size_t n, std::size_t k) {
  return 2.0 * double(m) * double(n) * double(k);
}
// Vector operations on P numbers: dot product or axpy (2P), scaling (P).
inline double dot(std::size_t p) { return 2.0 * double(p); }
inline double axpy(std::size_t p) { return 2.0 * double(p); }
inline double scale(std::size_t p) { return double(p); }
// Symmetric matrix times vector, P x P.
inline double symv(std::size_t p) { return 2.0 * double(p) * double(p); }
// Cholesky factorisation n^3/3 and a solve with k right-hand sides 2 n^2 k.
inline double cholesky(std::size_t n) { return double(n) * double(n) * double(n) / 3.0; }
inline double cholesky_solve(std::size_t n, std::size_t k) {
  return 2.0 * double(n) * double(n) * double(k);
}
// Symmetric eigendecomposition with vectors (tridiagonalisation 4n^3/3, back-transformation and
// the divide-and-conquer vectors about 8n^3/3): 4n^3, plus the pseudo-inverse solve
// V diag(1/lambda) V^T b, 4 n^2 k.
inline double symmetric_eigen(std::size_t n) { return 4.0 * double(n) * double(n) * double(n); }
inline double eigen_solve(std::size_t n, std::size_t k) {
  return 4.0 * double(n) * double(n) * double(k);
}
// BFGS inverse-Hessian update (two rank-one outer products and a matrix-vector product): 6 P^2.
inline double bfgs_update(std::size_t p) { return 6.0 * double(p) * double(p); }

}  // namespace radial::glm::flops
