#pragma once
// The side conditions P_c^T w = 0 of a polynomial term (radial/core/polynomial_term.hpp) as a change
// of variables: w = Z u with Z (M x (M - q)) orthonormal columns spanning {w : P_c^T w = 0},
// from the Householder QR P_c = Q [R; 0], Z = Q[:, q:] (the null-space method for equality-
// constrained least squares; Golub & Van Loan, "Matrix Computations", 4th ed., section 6.2).
// An output layer fits the unconstrained u on [Phi Z, P] and returns w = Z u: every minimiser
// of a penalised sum of squares under the side conditions is found so, by any solver.

#include <cstddef>
#include <string>
#include <vector>

#include "radial/core/types.hpp"

namespace radial {

class SideConditions {
 public:
  // p_at_centres: M x q, the q monomials (the constant among them) at the M centres. Throws
  // InputError naming `where` when P_c has rank < q: the polynomial is not unisolvent on the
  // centres (fewer than q centres, or all on a line for degree 1 in 2-D), so the side
  // conditions leave the interpolation system singular (SciPy refuses the same).
  SideConditions(const Matrix& p_at_centres, const std::string& where);

  std::size_t centres() const { return m_; }
  std::size_t conditions() const { return q_; }

  // a (rows x M, row-major) := a Q. Its columns q..M-1 are then a Z; 4 rows M q flops.
  void right_multiply(Matrix& a) const;
  // Z u for u ((M - q) x k): the weights w (M x k) that satisfy the side conditions.
  Matrix expand(const Matrix& u) const;

 private:
  std::size_t m_ = 0, q_ = 0;
  std::vector<Vector> reflectors_;  // v_i (length M, zero above i): H_i = I - tau_i v_i v_i^T
  std::vector<double> tau_;
};

}  // namespace radial
