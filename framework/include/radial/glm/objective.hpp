#pragma once
// The error of a generalised linear output layer over the design matrix, shared by every output
// trainer (irls, scg, bfgs): value, gradient and Hessian, computed block by block over rows.
//
//   A = Phi W            Phi: N x C design matrix with the bias column last (C = M + 1)
//                        W:   C x K weights, bias in the last row (as NETLAB)
//   identity  Y = A                 E = 1/2 sum_nk (y_nk - t_nk)^2          (paper 003, eq. 7)
//   logistic  y = 1 / (1 + e^-a)    E = -sum_n [t ln y + (1 - t) ln(1 - y)]  (eq. 4), K = 1
//   softmax   y_k = e^a_k / sum e^a (eq. 6)   E = -sum_nk t_nk ln y_nk        (eq. 5)
//   plus penalty(W) from the weight penalty, when there is one.
//
// For the canonical links the gradient is Phi^T (Y - T) and the Hessian is (eq. 13)
//   H[(i,k),(j,l)] = sum_n phi_ni phi_nj c_n,kl,  c_n,kl = y_nk (delta_kl - y_nl)
// (logistic: y(1 - y); identity: delta_kl). The simplified Hessian keeps only the blocks k = l
// (each output treated as an independent logistic model, paper section 2.2). Parameters are
// flattened row-major, p = i*K + k, as the WeightPenalty interface states, so H is P x P with
// P = C*K.
//
// Numerically safe: E is computed as log(1 + e^a) - t a and log-sum-exp(a) - t.a, which never
// take log(0) and stay finite for any finite activations.
//
// Every evaluation adds its analytical flop count (formulas in radial/glm/flops.hpp, written
// beside each computation in objective.cpp) and is counted, for the fit report.
//
// Sharded rows (radial/distributed/collectives.hpp): each rank builds the objective on its own
// rows, and every pass over the rows (value, gradient, Hessian blocks, the weighted normal
// equations, and their flop counts) is this rank's ordered row-block reduction combined over the
// ranks in a fixed order, so that every rank holds the same E, gradient and Hessian of all rows and
// a trainer's solves, line searches and stopping decisions run on identical values on every rank.
// Every rank must make the same calls in the same order. The combination continues one
// process's fold over the row blocks across the ranks (fold_blocks_over_ranks: a record per
// block) and runs the weighted normal equations on the ranks' rows in turn (chain_over_ranks):
// on shards that start at multiples of the block size (1024 rows) every result is then one
// process's bit for bit, which trainers that amplify rounding (SCG, BFGS; IRLS on separable
// classes) need to stay equal to one process. A pass whose records would outgrow
// fold_record_bytes (large Hessians) sums per-rank partials in one message instead (equal to
// rounding).

#include <cstddef>
#include <functional>

#include "radial/core/dataset.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/network/link.hpp"
#include "radial/core/types.hpp"

namespace radial {
class WeightPenalty;
}

namespace radial::glm {

enum class HessianKind { Exact, Simplified };

// The most weights K (M + 1) for which the exact softmax Hessian is formed and decomposed: its
// eigendecomposition costs ~9 (K (M + 1))^3 flops per iteration (2 s at 2048 weights, minutes at
// 10^4) and four copies of 8 (K (M + 1))^2 bytes. Above it the block-diagonal (simplified)
// Hessian is used instead, with a warning.
constexpr std::size_t max_exact_softmax_weights = 2048;

struct Counters {
  std::size_t function_evaluations = 0;  // passes that computed E
  std::size_t gradient_evaluations = 0;  // passes that also computed the gradient
  std::size_t hessian_evaluations = 0;   // passes that also computed the Hessian
  std::size_t hessian_products = 0;      // passes that applied the Hessian to a direction
  double flops = 0;                      // everything counted so far (objective and solvers)
};

class Objective {
 public:
  // Phi streamed from `design` (which must outlive the objective). `targets` is N x K as given
  // by targets_for(link, data). `penalty` may be null (no penalty).
  // Throws ShapeError when the rows differ, InputError for a link other than identity,
  // logistic and softmax, or a logistic link with more than one target column.
  Objective(const DesignMatrix& design, Matrix targets, Link link,
            const WeightPenalty* penalty = nullptr);
  // The targets targets_for(link, data) read block by block from the class indices or values
  // of `data` (which must outlive the objective), never held as N x K: the same objective
  // in O(block) memory for the targets. Throws as targets_for and the constructor above.
  Objective(const DesignMatrix& design, const Dataset& data, Link link,
            const WeightPenalty* penalty = nullptr);
  // Phi held in memory (small problems and tests); the same checks.
  Objective(Matrix design, Matrix targets, Link link, const WeightPenalty* penalty = nullptr);

  std::size_t rows() const { return rows_; }              // this rank's rows
  std::size_t total_rows() const { return total_rows_; }  // rows over all ranks
  std::size_t cols() const { return cols_; }              // C = M + 1
  std::size_t outputs() const { return outputs_; }        // K
  std::size_t size() const { return cols_ * outputs(); }  // P
  Link link() const { return link_; }
  bool penalised() const { return penalty_ != nullptr; }
  const WeightPenalty* weight_penalty() const { return penalty_; }

  // Row-block workers of the passes over Phi held in memory (radial/exec/parallel.hpp; the results
  // never depend on it); a streamed Phi uses its DesignMatrix's setting. Default 1.
  void set_threads(int threads) { threads_ = threads; }
  int threads() const;

  // Phi and the targets of this rank's rows in the row blocks (of the passes' block size,
  // counted from the first row of rank 0) whose index is a multiple of `stride`: a subsample
  // of whole blocks, the same rows for any thread count and, on shards that start at block
  // boundaries, for any rank count. Every rank must call it (it learns its first row).
  void every_nth_block(std::size_t stride, Matrix& design, Matrix& targets) const;

  // Rows [first, first + count) of the targets T (count x K) into `out`, resized as needed.
  void targets_block(std::size_t first, std::size_t count, Matrix& out) const;

  // E(W) = E_data(W) + penalty(W).
  double value(const Matrix& weights);
  // E(W); gradient (C x K) = dE/dW.
  double gradient(const Matrix& weights, Matrix& gradient);
  // E(W), the gradient and the P x P Hessian in one pass over the rows.
  double hessian(const Matrix& weights, HessianKind kind, Matrix& gradient, Matrix& hessian);

  // The Hessian at `weights` (of `kind`, plus the penalty's) applied to `direction` (C x K)
  // into `product` (C x K), in one pass over the rows that never forms the P x P Hessian:
  //   H V = Phi^T U + penalty''(W) V,   U_nk = sum_l c_n,kl (Phi V)_nl   (eq. 13's c_n,kl;
  //   logistic y (1 - y), identity delta_kl, simplified: the terms k = l only).
  // The outputs Y = link(Phi W) are made again in the pass (no N x K array is kept between
  // passes). The same ordered reduction over the row blocks and the ranks as the gradient, so
  // the product is the same bits for any thread count (and rank count on block-aligned
  // shards). Newton-CG trainers (irls, solver = "cg") call it once per CG iteration.
  void hessian_product(const Matrix& weights, HessianKind kind, const Matrix& direction,
                       Matrix& product);

  // The data term alone and the penalty alone (no counting; for reports and tests).
  double data_error(const Matrix& weights) const;
  double penalty(const Matrix& weights) const;

  // Network outputs link(Phi W) of this rank's rows, rows() x K.
  Matrix outputs_at(const Matrix& weights) const;

  // Weighted least squares, one system per output (used by IRLS's start from the smoothed
  // targets, eq. 12, and by the pseudo-inverse start of SCG and BFGS):
  //   A_k = Phi^T diag(v_k) Phi  and  b_k = Phi^T (v_k * z_k)      (v, z: N x K)
  // returned as the block-diagonal P x P matrix and the P vector in the flattening above.
  // The penalty's Hessian at W = 0 is added (a ridge term for quadratic penalties). v >= 0
  // (NumericalError otherwise): A_k is accumulated as a symmetric rank-k update.
  void weighted_normal_equations(const Matrix& v, const Matrix& z, Matrix& system,
                                 Vector& rhs);
  // The same with v and z made block by block: weights(first, t, v, z) receives the targets
  // t of rows [first, first + rows of t) and fills v and z (already sized like t), so that no
  // N x K array is needed.
  using BlockWeights =
      std::function<void(std::size_t first, const Matrix& t, Matrix& v, Matrix& z)>;
  void weighted_normal_equations(const BlockWeights& weights, Matrix& system, Vector& rhs);

  const Counters& counters() const { return counters_; }
  void add_flops(double flops) { counters_.flops += flops; }

 private:
  struct Pass;  // one worker's sums and scratch in a pass over the rows
  void for_each_block(const std::function<void(std::size_t, const Matrix&)>& visit) const;
  // Ordered reduction over the row blocks (DesignMatrix::reduce_blocks; one worker for Phi in
  // memory) and the number of workers it uses.
  void reduce_blocks(const std::function<void(std::size_t, std::size_t, const Matrix&)>& work,
                     const std::function<void(std::size_t, std::size_t)>& combine) const;
  std::size_t reduce_workers() const;
  // One pass over the rows; adds its analytical cost to `flops`.
  double run(const Matrix& weights, Matrix* gradient, Matrix* hessian, HessianKind kind,
             bool with_penalty, double& flops) const;
  void block_pass(const Matrix& weights, bool exact, bool gradient, bool hessian,
                  std::size_t first, const Matrix& phi, Pass& part) const;
  // One row block of hessian_product: part.gradient = Phi_b^T U_b.
  void block_product(const Matrix& weights, const Matrix& direction, bool exact,
                     std::size_t first, const Matrix& phi, Pass& part) const;
  void add_penalty_terms(const Matrix& weights, Matrix* gradient, Matrix* hessian, double& error,
                         double& flops) const;
  void count(bool gradient, bool hessian, double flops);
  void check_weights(const Matrix& weights) const;
  // The checks every constructor makes (shapes of this rank's rows, the link), agreed over the
  // ranks so that a rank whose rows disagree stops every rank; then the global row count.
  void check_and_count(const std::function<void()>& local_checks);

  // The targets of rows [first, first + count): a pointer into targets_, or `buffer` filled
  // from data_.
  const double* target_rows(std::size_t first, std::size_t count, Matrix& buffer) const;

  const DesignMatrix* design_ = nullptr;  // streamed Phi, or
  Matrix phi_;                            // Phi in memory
  std::size_t cols_ = 0;
  std::size_t rows_ = 0, outputs_ = 0;
  std::size_t total_rows_ = 0;
  std::size_t max_blocks_ = 0;  // row blocks of the largest shard
  Matrix targets_;                        // N x K targets, or
  const Dataset* data_ = nullptr;         // class indices / values coded per block
  Link link_;
  const WeightPenalty* penalty_ = nullptr;
  int threads_ = 1;  // Phi in memory only
  Counters counters_;
};

// Row blocks used when Phi is held in memory.
inline constexpr std::size_t objective_block_rows = 1024;

// Memory a rank may spend on the per-block records of one pass over sharded rows (see
// objective.cpp, Objective::run): above it the pass sums per-rank partials instead.
inline constexpr std::size_t fold_record_bytes = std::size_t(128) << 20;

}  // namespace radial::glm
