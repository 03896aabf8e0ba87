#pragma once
// The regularised normal equations of a design matrix solved without forming Phi^T Phi:
//
//   (Phi^T Phi + H) W = Phi^T T - G        W: P x K, one system per output column, H shared
//
// by preconditioned conjugate gradient (Hestenes & Stiefel 1952; the preconditioned form as in
// FALKON, Rudi, Carratino & Rosasco 2017, Alg. 1). Each iteration is one pass over Phi's row
// blocks, made on the fly (or read from the DesignMatrix's cache): U_b = Phi_b P_k, then
// Q += Phi_b^T U_b, an ordered reduction over the blocks continued over the ranks as every
// pass is (radial/distributed/sharded_pass.hpp), so the iterates are the same bits for any
// thread count, and for any rank count on block-aligned shards. Cost per iteration:
// N P (2 d + the basis map) for the block plus 4 N P K, against N P^2 + 9 P^3 for the direct
// solve of the formed normal equations.
//
// Preconditioner: C = (N / S) Phi_S^T Phi_S + H + jitter I = L L^T, with Phi_S the design on S
// sketch rows (the caller's choice: the centres themselves, so that C costs S P^2 + P^3 / 3 and
// no pass over the data). With the centres a uniform subset of the training rows and a Gaussian
// basis, Phi_S^T Phi_S is K_MM K_MM (bias column aside), and (N / M) K_MM^2 + H is FALKON's
// approximation of K_nM^T K_nM + H (their eq. for B B^T; with the RKHS penalty H = lambda N K_MM
// it is their preconditioner, formed rather than factored in two steps). For centres that follow
// the data's density (k-means, mixtures) the same sum is a quadrature of Phi^T Phi over the
// centres. The jitter starts at 1e-12 of C's mean diagonal and grows x100 until the Cholesky
// factorisation succeeds (reported). With the bias last (options.bias_last) C has one more
// sketch row, [0 ... 0 1].

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "radial/network/design_matrix.hpp"
#include "radial/core/types.hpp"

namespace radial {

// The penalty as the same quadratic in every output column w (P entries):
//   penalty(w) = const + g^T w + 1/2 w^T H w.
struct ColumnQuadratic {
  // hessian (P x P) += H. Empty: H = 0.
  std::function<void(Matrix& hessian)> add_hessian;
  // out (P x K) += H W for every column. Empty: H = 0.
  std::function<void(const Matrix& w, Matrix& out)> add_product;
  Matrix gradient;  // g, P x 1; empty means 0
};

struct NormalCgOptions {
  double tolerance = 1e-6;          // stop when ||r_k|| <= tolerance ||b_k|| for every column
  std::size_t max_iterations = 200;
  double sketch_weight = 1.0;       // N / S in the preconditioner (N: all ranks' rows)
  bool precondition = true;         // false: plain CG (for comparison and tests)
  // The design's last column is the constant 1 (the bias): C then gets one more sketch row
  // [0 ... 0 1], a point far from every centre where only the bias acts. S sketch rows alone
  // give a Gram of rank at most S for S + 1 columns, and with an unpenalised bias C was
  // singular but for the jitter (the iterates drifted apart between rank counts by 1e-5).
  bool bias_last = false;
};

struct NormalCgResult {
  Matrix weights;                       // P x K
  std::size_t iterations = 0;           // passes over Phi after the first (Phi^T T)
  bool converged = false;
  std::vector<double> residuals;        // max_k ||r_k|| / ||b_k|| after each iteration (0: start)
  double jitter = 0;                    // added to C's diagonal (relative to its mean diagonal)
  double flops = 0;                     // products and solves, without the design blocks
  double preconditioner_seconds = 0;
  // The right-hand side b = Phi^T T - g and the last residual r = b - A W (the recurrence's,
  // within rounding of the true one): Phi^T Phi W = b - r - H W, so a caller can have
  // ||Phi W - T||^2 without another pass (cg_sum_of_squares).
  Matrix rhs, residual;
};

// ||Phi W - T||^2 from the solve's own products, W^T Phi^T Phi W - 2 W^T Phi^T T + T^T T, with
// `targets_squared` = T^T T over all ranks and `hw` = H W: exact up to the cancellation of the
// three terms (digits lost: log10 of T^T T over the result) and the residual's drift.
double cg_sum_of_squares(const NormalCgResult& solve, const Matrix& hw, const Matrix& gradient,
                         double targets_squared);

// Solves the system above. `t`: this rank's rows x K targets. `sketch`: the design on the
// sketch rows, the same on every rank (null when options.precondition is false). Collective:
// every rank calls it with its own shard of `design` and `t`. Throws NumericalError when the
// preconditioner cannot be factorised even with a large jitter, or when an iterate is not
// finite.
NormalCgResult solve_normal_cg(const DesignMatrix& design, const Matrix& t,
                               const DesignMatrix* sketch, const ColumnQuadratic& penalty,
                               const NormalCgOptions& options);

// Phi^T Phi over a (small) design's rows, formed by panels of columns on design.threads()
// workers: every entry is summed over the row blocks in order, so the bits do not depend on the
// thread count. Returned column-major lower triangle filled (for LAPACK's 'L' routines), upper
// triangle as well.
Matrix sketch_gram(const DesignMatrix& design);

}  // namespace radial
