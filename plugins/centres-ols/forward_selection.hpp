#pragma once
// Orthogonal least squares forward selection (Chen, Cowan & Grant 1991, IEEE Trans. Neural
// Networks 2(2) 302-309) and its regularised form (ROLS: Chen, Chng & Alkadhimi 1996, Int. J.
// Control 64(5) 829-837), on candidate columns held in memory.
//
// (Equation numbers are not cited: the papers are not in papers/; the formulas are those of
// their section III and of the plugin's README.) The regression d = P theta + e over
// candidate columns p_k is written as P = W A with orthogonal columns w_i; each step
// orthogonalises every remaining candidate against the regressors chosen so far (Gram-Schmidt,
// in the modified order: each chosen w_i is taken out of every candidate once, two passes over
// the N x M_c columns a step) and takes the candidate with the largest error reduction ratio
//     [err]_k = (w_k^T d)^2 / ((w_k^T w_k + lambda) d^T d)
// summed over the outputs for several targets (the 1991 paper's multi-output form,
// [err]_k = sum_o (w_k^T d_o)^2 / ((w_k^T w_k) trace(D^T D))). lambda = 0 is the 1991
// algorithm; lambda > 0 penalises the orthogonal weights g_i = w_i^T d / (w_i^T w_i + lambda)
// (ROLS), whose residual e = d - sum_i g_i w_i the stops read. The bias column of the
// network's design ([Phi, 1]) is the first regressor, chosen before any candidate (w_0 = 1:
// the candidates and targets are centred), as the network always has it.
//
// Stops: a count; an error goal (the residual's mean square <= goal, as MATLAB's newrb); or
// the first step at which generalised cross-validation, GCV = N e^T e / (N - gamma)^2 with
// gamma = 1 + sum_i w_i^T w_i / (w_i^T w_i + lambda) (Orr 1995, Neural Computation 7(3)
// 606-623: regularised forward selection stopped by GCV), or the leave-one-out error
// sum_n (e_n / (1 - H_nn))^2 / N with H = 11^T/N + sum_i w_i w_i^T / (w_i^T w_i + lambda)
// rises; the step that rose is then undone (the minimum is kept), save the first centre, which
// stays (a network has one at least). A candidate whose
// orthogonalised column has lost all but `dependence` of its squared norm is skipped as
// linearly dependent on those chosen (Chen et al. 1991, section III).
//
// lambda fixed, or re-estimated after every step (Orr 1995; Orr 1996, "Introduction to radial
// basis function networks", section 6 on optimising ridge regression's parameter and section
// 7 on regularised forward selection; not in papers/, so no equation numbers): moved to the stationary point of GCV for
// the columns chosen so far by iterating his re-estimation formula (reestimate_lambda); the
// next ratio, the weights and the figures then use it. The first centre is chosen with
// lambda = 0 (the 1991 ratio).

#include <cstddef>
#include <vector>

#include <radial/core/types.hpp>

namespace radial::plugins {

enum class OlsStop { Count, Goal, Gcv, Loo };

struct OlsSettings {
  std::size_t count = 1;  // the most regressors chosen (besides the bias)
  OlsStop stop = OlsStop::Count;
  double goal = 0;        // OlsStop::Goal: residual mean square per output
  double lambda = 0;      // ROLS regularisation; 0 = the 1991 algorithm
  bool reestimate = false;  // lambda re-estimated by GCV after every step (lambda unused)
  double dependence = 1e-10;
  int threads = 1;
};

struct OlsSelection {
  std::vector<std::size_t> chosen;  // candidate indices, in the order chosen
  std::vector<double> err;          // their error reduction ratios
  double bias_err = 0;              // the bias column's (d's mean), chosen first
  std::vector<double> mse;          // residual mean square after 0, 1, ... regressors
  std::vector<double> gcv, loo;     // the same for GCV and leave-one-out (index 0: bias only)
  std::vector<double> lambda;       // the lambda of each of those figures
  std::size_t lambda_unconverged = 0;  // steps whose re-estimation stopped at its cap
  bool stopped_by_criterion = false;  // GCV / LOO rose (its last step undone) or goal met
  bool exhausted = false;             // no independent candidate was left
};

// The re-estimation of lambda for orthogonal columns with squared norms h_i and c_i = w_i^T D
// (K values each, row i of c), the centred targets' d^T d over all outputs, N rows and an
// unpenalised bias: the fixed point of lambda = S sum_i h_i / (h_i + lambda)^2 /
// ((N - gamma) sum_i |c_i|^2 / (h_i + lambda)^3), iterated from `start` (at most 1000 times, to
// a relative change of 1e-10). When GCV falls all the way to lambda = infinity the estimate
// stops at 1e12 max(h_i, 1).
struct LambdaEstimate {
  double lambda = 0;
  int iterations = 0;
  bool converged = false;
};
LambdaEstimate reestimate_lambda(const std::vector<double>& h, const std::vector<double>& c,
                                 std::size_t k_out, double centred_total, double rows,
                                 double start);

// columns: M_c x N, candidate k's column of the design in row k (rows contiguous, overwritten
// by the orthogonalised columns). targets: N x K. Deterministic for any settings.threads.
// Sharded rows (radial/distributed/collectives.hpp): each rank passes its rows' part of the
// columns and targets; every sum over rows (inner products, means, the figures) is then
// summed over the ranks, so every rank makes the same choices.
OlsSelection forward_select(Matrix& columns, const Matrix& targets, const OlsSettings& settings);

}  // namespace radial::plugins
