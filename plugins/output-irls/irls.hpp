#pragma once
// IRLS / Fisher scoring for the output weights of an RBF network with logistic or softmax
// outputs (Nabney, papers 000/003 section 2.2), and one exact step for linear outputs.
//
// Iteration 1 is the weighted least-squares fit (eq. 12) of the smoothed targets; every later
// iteration is the Newton / Fisher scoring step (eq. 10) W <- W - H^-1 g, which for the logistic
// link is exactly eq. 12 with z = Phi W + e (eq. 11). The softmax Hessian is either the exact one
// (the sum of eq. 13 terms, solved by eigendecomposition as the paper's SVD) or the simplified
// one that treats each output independently.
//
// Beyond NETLAB: with step_control the step is halved along the Newton direction until the
// error decreases (NETLAB's plain steps stop at the first increase, above the minimum), and the
// solve is rank-aware (Cholesky, else eigen pseudo-inverse). Separable data is detected and
// reported instead of driving the weights to infinity.
//
// Newton-CG (solver = "cg", issue 45): each Newton system H d = -g is solved by preconditioned
// conjugate gradient (Hestenes & Stiefel 1952) with Hessian-vector products
// H V = Phi^T (C (Phi V)) + penalty'' V made in one pass over the design's row blocks
// (glm::Objective::hessian_product), never forming the K (M + 1) square Hessian; truncated
// (Nocedal & Wright, Numerical Optimization, Alg. 7.1, "line search Newton-CG") at a residual
// of eta_k ||g_k||, eta_k = min(1/2, sqrt(||g_k|| / ||g_1||)) (superlinear near the minimum),
// at least 1e-12 ||g_1|| (the products' rounding lies below).
// The preconditioner is block-diagonal by output: for output k the Cholesky factor of
//   (N / S) Phi_S^T diag(c_sk) Phi_S + H_pen,k,   c_sk = y_sk (1 - y_sk) at the current W,
// Phi_S the design at the S = M centres as rows (normal_cg's sketch, radial/numerics/
// normal_cg.hpp, weighted by the IRLS weights at the sketch rows), H_pen,k the penalty's
// Hessian of column k alone. Chosen over one shared factor weighted by the IRLS weights' mean:
// a class's curvature lies where that class is uncertain, which differs between outputs, and
// the K factors (K (M + 1)^2 doubles, K (M + 1)^3 / 3 flops per Newton step) stay K times
// below the formed exact Hessian's memory. The exact softmax adds a coarse correction on the
// directions shared by the outputs (E = 1_K x I: no data curvature there, only the penalty's,
// so E^T H E = H_pen of one column) and projects the preconditioned residual off the shared
// directions the penalty leaves out (H's null space: the direct path's pseudo-inverse takes
// no step there either). Without a sketch (irls() called with none) CG runs unpreconditioned.

#include <cstddef>
#include <string>
#include <utility>

#include "radial/network/design_matrix.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/optim/line_search.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

// How each Newton system is solved: direct (the Hessian formed and decomposed), cg (Newton-CG,
// above), auto (cg above max_direct_weights weights, when a sketch is given).
enum class IrlsSolver { Auto, Direct, Cg };

struct IrlsOptions : glm::TrainerOptions {
  glm::HessianKind hessian = glm::HessianKind::Exact;
  bool step_control = true;
  glm::ArmijoOptions line_search;  // the step control: c1 = 1e-4, at most 30 halvings
  bool subsample_start = true;
  bool reuse_hessian = true;  // direct solver only
  IrlsSolver solver = IrlsSolver::Auto;
  std::size_t cg_iterations = 250;  // cap on CG iterations per Newton step
};

// solver = "auto" takes cg above this many weights K (M + 1) (when the fit has centres for the
// preconditioner). The formed Hessian costs N (M+1)^2 K (K+1) / 2 flops per pass plus its
// decomposition, 9 P^3 for the exact softmax (eigen, P = K (M + 1)) or K (M+1)^3 / 3
// (Cholesky), in 4 P^2 doubles; Newton-CG costs ~6 N P per CG iteration plus the
// preconditioner's K (M (M+1)^2 + (M+1)^3 / 3) per Newton step. At P = 2048 the exact softmax
// decomposition alone is 77 GFLOP (over a second at the machine's rate) per step, and a
// Hessian pass at N = 20,000 is N P^2 / 2 = 42 GFLOP against 0.25 GFLOP per CG iteration, so
// below it the direct path's few exact steps win or tie and above it CG does; it is also
// glm::max_exact_softmax_weights, above which the direct path drops to the simplified
// Hessian. Below it nothing changes: the default fit is the paper's direct one.
inline constexpr std::size_t max_direct_weights = glm::max_exact_softmax_weights;

// True when `options` solve the Newton systems of a network of `weights` = K (M + 1) by CG
// (given centres for the sketch when `sketch` is true).
bool uses_cg(const IrlsOptions& options, std::size_t weights, bool sketch);

// The subsample start (beyond the paper): on at least subsample_start_rows rows (all ranks),
// logistic or softmax, IRLS first runs on every subsample_stride-th block of rows with the
// penalty scaled by the subsample's share of the rows (glm::block_subsample), itself started the
// same way, and the full fit starts from its converged weights. The minimum is the same; the
// many Newton steps of a weakly penalised, nearly separable start then run on a subsample.
inline constexpr std::size_t subsample_start_rows = 65536;
inline constexpr std::size_t subsample_stride = 8;

// Hessian reuse (beyond the paper; Shamanskii's variant of Newton's method): on at least
// hessian_reuse_rows rows, once a Newton step predicts a decrease (half the Newton decrement
// -g^T d) below hessian_reuse_decrease x the error, the next iterate gets a gradient pass only
// and keeps the Hessian, for as long as each step divides the gradient's largest entry by 4;
// then the Hessian is computed afresh. A Hessian pass costs about M / 2 gradient passes.
inline constexpr std::size_t hessian_reuse_rows = 16384;
inline constexpr double hessian_reuse_decrease = 1e-3;

// Runs IRLS on `objective` and fills ctx.report; returns finite C x K weights. `sketch`: the
// design at the centres as rows (S x C, the same on every rank) for the CG preconditioner;
// null: solver auto is direct and cg unpreconditioned.
Matrix irls(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx,
            const DesignMatrix* sketch = nullptr);

inline constexpr char irls_id[] = "irls";

// IRLS's working memory: the softmax Hessian whole, K (M + 1) square, exact or block-diagonal
// (which only changes the solve: glm::max_exact_softmax_weights), and its solve; one Hessian per
// output for a single output. With `cg`: the K preconditioner factors and the sketch, (K + 1)
// (M + 1)^2 doubles.
WorkingMemory irls_memory(std::size_t rows, std::size_t centres, std::size_t outputs,
                          bool cg = false);

// The output layer: IRLS on the GLM objective, as glm::TrainerLayer, with the design at the
// centres made for the CG preconditioner when the solver is cg.
class Irls final : public OutputLayer {
 public:
  explicit Irls(IrlsOptions options) : options_(std::move(options)) {}
  WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                               std::size_t outputs) const override;
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;

 private:
  IrlsOptions options_;
};

}  // namespace radial::plugins
