#pragma once
// Newton systems H d = -g of the output trainers, solved stably, never by an explicit inverse:
// Cholesky first, falling back to a rank-aware pseudo-inverse by symmetric eigendecomposition
// when H is not numerically positive definite (the softmax Hessian is always singular: adding
// the same vector to every output's weights leaves the outputs unchanged, paper 003 section 2.2,
// "solved by singular value decomposition").

#include <cstddef>
#include <string>

#include "radial/core/types.hpp"

namespace radial::glm {

struct SymmetricSolve {
  Vector x;                  // the solution (minimum norm on the numerical range)
  std::size_t rank = 0;      // eigenvalues kept (= size after a successful Cholesky)
  std::size_t size = 0;
  bool cholesky = false;     // solved by Cholesky
  double condition = 0;      // lambda_max / lambda_min kept (eigen path), or the Cholesky
                             // estimate (max L_ii / min L_ii)^2
  double flops = 0;          // analytical count (radial/glm/flops.hpp)
};

enum class SolveMethod {
  CholeskyFirst,  // Cholesky; eigen pseudo-inverse if it fails or condition > 1 / rcond
  Eigen,          // eigen pseudo-inverse directly (the paper's SVD solve)
};

// Solves S x = b for symmetric positive semi-definite S (n x n). On the eigen path, with
// damping = 0, eigenvalues below rcond * lambda_max are treated as zero (rcond <= 0:
// n * machine epsilon, as pinv); with damping > 0 every eigenvalue is floored at
// damping * lambda_max instead, so directions of tiny curvature still get a bounded step rather
// than none (and Cholesky is abandoned for the eigen path above condition 1 / damping).
SymmetricSolve solve_symmetric(const Matrix& s, const Vector& b, SolveMethod method,
                               double rcond = -1, double damping = 0);

// The same for a system that is block diagonal in the flattening p = i*K + k (the simplified
// Hessian: one (P/K) x (P/K) system per output k), solved output by output.
SymmetricSolve solve_block_diagonal(const Matrix& s, const Vector& b, std::size_t outputs,
                                    SolveMethod method, double rcond = -1, double damping = 0);

}  // namespace radial::glm
