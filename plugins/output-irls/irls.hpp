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

#include <cstddef>
#include <string>

#include "radial/fit_context.hpp"
#include "radial/glm/line_search.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/output_layer.hpp"
#include "radial/params.hpp"

namespace radial::plugins {

struct IrlsOptions : glm::TrainerOptions {
  glm::HessianKind hessian = glm::HessianKind::Exact;
  bool step_control = true;
  glm::ArmijoOptions line_search;  // the step control: c1 = 1e-4, at most 30 halvings
  bool subsample_start = true;
  bool reuse_hessian = true;
};

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

// Runs IRLS on `objective` and fills ctx.report; returns finite C x K weights.
Matrix irls(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx);

inline constexpr char irls_id[] = "irls";

// IRLS's working memory: the softmax Hessian whole, K (M + 1) square, exact or block-diagonal
// (which only changes the solve: glm::max_exact_softmax_weights), and its solve; one Hessian per
// output for a single output.
WorkingMemory irls_memory(std::size_t rows, std::size_t centres, std::size_t outputs);

// The output layer: IRLS on the GLM objective (glm::TrainerLayer).
using Irls = glm::TrainerLayer<IrlsOptions, irls, irls_id, irls_memory>;

}  // namespace radial::plugins
