#pragma once
// Newton-CG for IRLS (irls.hpp, solver = "cg"): the block-diagonal preconditioner of one Newton
// step made from the design at the centres, and truncated preconditioned conjugate gradient on
// the Newton system H d = -g.

#include <cstddef>
#include <vector>

#include "radial/glm/objective.hpp"

namespace radial::plugins::irls_cg {

// The Newton-CG preconditioner of one Newton step (irls.hpp): per output k the Cholesky factor
// (row-major storage read by LAPACK as column-major 'L') of
//   (N / S) Phi_S^T diag(c_sk) Phi_S + H_pen,k + jitter I,   c_sk = y_sk (1 - y_sk)
// at the current weights. No factors: the identity (no sketch).
struct Preconditioner {
  std::vector<Matrix> factors;
  // Exact softmax only: the Cholesky factor of the coarse operator E^T H E on the outputs'
  // shared directions (below); empty: none. Rows the penalty leaves out (a zero diagonal:
  // the unpenalised bias) are H's null space there and get no correction (`skipped`).
  Matrix coarse;
  std::vector<bool> skipped;
  // Exact softmax: the rows i where one value added to every output's weight W_ik is in H's
  // null space (every row without a penalty; the rows it leaves out, e.g. the bias, with one).
  // z is projected off those directions, so the steps stay in H's range as the direct path's
  // pseudo-inverse steps do, instead of drifting along the null space with rounding.
  std::vector<bool> null_rows;
  double jitter = 0;  // the largest relative jitter the factorisations needed
  double flops = 0;

  // z = P^{-1} r (C x K), output by output.
  void apply(const Matrix& r, Matrix& z) const;
  // The factors' and the coarse operator's solves of apply (without the null-row projection).
  void apply_blocks(const Matrix& r, Matrix& z) const;
};

// Preconditioner::null_rows of the exact softmax Hessian at w (empty otherwise).
std::vector<bool> softmax_null_rows(const glm::Objective& objective, const Matrix& w,
                                    bool exact_softmax);

// The preconditioner at the weights w from phi_s, the design at the centres as rows (S x C).
Preconditioner sketch_preconditioner(const glm::Objective& objective, const Matrix& phi_s,
                                     const Matrix& w, bool exact_softmax);

struct CgStep {
  Matrix d;                    // the Newton direction, C x K
  std::size_t iterations = 0;  // Hessian-vector products
  bool converged = false;      // the residual reached eta ||g||
  bool curvature_stop = false; // p^T H p <= 0 met (truncated there)
};

// Preconditioned CG on H d = -g from d = 0 (Nocedal & Wright Alg. 7.1 with a preconditioner),
// stopped at ||r|| <= max(eta ||g||, floor). Dot products over the P entries in storage order:
// the same bits on any thread count (the products are, glm::Objective::hessian_product).
CgStep newton_cg(glm::Objective& objective, const Matrix& w, const Matrix& g,
                 glm::HessianKind kind, const Preconditioner& pre, double eta, double floor,
                 std::size_t cap);

}  // namespace radial::plugins::irls_cg
