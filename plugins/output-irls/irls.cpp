// IRLS / Fisher scoring (see irls.hpp).
#include "irls.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/errors.hpp"
#include "radial/glm/block_subsample.hpp"
#include "radial/glm/flops.hpp"
#include "radial/glm/line_search.hpp"
#include "radial/glm/newton.hpp"
#include "radial/glm/training.hpp"
#include "radial/glm/vectors.hpp"
#include "radial/link.hpp"
#include "radial/weight_penalty.hpp"

namespace radial::plugins {

namespace {

using Index = xt::blas_index_t;

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
  void apply(const Matrix& r, Matrix& z) const {
    z = r;
    const std::size_t c = r.shape(0), k = r.shape(1);
    apply_blocks(r, z);
    if (null_rows.empty()) return;
    for (std::size_t i = 0; i < c; ++i) {
      if (!null_rows[i]) continue;
      double mean = 0;
      for (std::size_t out = 0; out < k; ++out) mean += z(i, out);
      mean /= double(k);
      for (std::size_t out = 0; out < k; ++out) z(i, out) -= mean;
    }
  }

  void apply_blocks(const Matrix& r, Matrix& z) const {
    if (factors.empty()) return;
    const std::size_t c = r.shape(0), k = r.shape(1);
    std::vector<double> column(c);
    for (std::size_t out = 0; out < k; ++out) {
      for (std::size_t i = 0; i < c; ++i) column[i] = r(i, out);
      const Index info = cxxlapack::potrs<Index>('L', Index(c), Index(1), factors[out].data(),
                                                 Index(c), column.data(), Index(c));
      if (info != 0)
        throw NumericalError("LAPACK dpotrs failed on the CG preconditioner (info = " +
                             std::to_string(info) + ")");
      for (std::size_t i = 0; i < c; ++i) z(i, out) = column[i];
    }
    if (coarse.size() == 0) return;
    // + E (E^T H E)^{-1} E^T r with E = 1_K x I_C / sqrt(K): (1/K) A_c^{-1} sum_k r_k added
    // to every output.
    for (std::size_t i = 0; i < c; ++i) {
      double sum = 0;
      for (std::size_t out = 0; out < k; ++out) sum += r(i, out);
      column[i] = skipped[i] ? 0.0 : sum / double(k);
    }
    const Index info = cxxlapack::potrs<Index>('L', Index(c), Index(1), coarse.data(),
                                               Index(c), column.data(), Index(c));
    if (info != 0)
      throw NumericalError("LAPACK dpotrs failed on the CG coarse operator (info = " +
                           std::to_string(info) + ")");
    for (std::size_t i = 0; i < c; ++i)
      if (!skipped[i])
        for (std::size_t out = 0; out < k; ++out) z(i, out) += column[i];
  }
};

// Preconditioner::null_rows of the exact softmax Hessian at w (empty otherwise).
std::vector<bool> softmax_null_rows(const glm::Objective& objective, const Matrix& w,
                                    bool exact_softmax) {
  if (!exact_softmax) return {};
  const std::size_t c = objective.cols();
  const WeightPenalty* penalty = objective.weight_penalty();
  if (!penalty) return std::vector<bool>(c, true);
  Matrix column = xt::zeros<double>({c, std::size_t(1)});
  for (std::size_t i = 0; i < c; ++i) column(i, 0) = w(i, 0);
  Matrix h = xt::zeros<double>({c, c});
  penalty->add_hessian(column, h);
  double largest = 0;
  for (std::size_t i = 0; i < c; ++i) largest = std::max(largest, h(i, i));
  std::vector<bool> rows(c);
  for (std::size_t i = 0; i < c; ++i) rows[i] = !(h(i, i) > 1e-14 * largest);
  return rows;
}

// The Cholesky factor of `a` (C x C, row-major read as column-major 'L') with the smallest
// jitter 1e-12 ... 1e-2 of its mean diagonal that factorises; false when none does.
bool factor_with_jitter(Matrix& a, double& jitter) {
  const std::size_t c = a.shape(0);
  double mean_diagonal = 0;
  for (std::size_t i = 0; i < c; ++i) mean_diagonal += a(i, i);
  mean_diagonal /= double(std::max<std::size_t>(c, 1));
  if (!(mean_diagonal > 0) || !std::isfinite(mean_diagonal)) return false;
  const Matrix saved = a;
  for (double relative = 1e-12; relative <= 1e-2; relative *= 100) {
    for (std::size_t i = 0; i < c; ++i) a(i, i) += relative * mean_diagonal;
    if (cxxlapack::potrf<Index>('L', Index(c), a.data(), Index(c)) == 0) {
      jitter = std::max(jitter, relative);
      return true;
    }
    a = saved;
  }
  return false;
}

Preconditioner sketch_preconditioner(const glm::Objective& objective, const Matrix& phi_s,
                                     const Matrix& w, bool exact_softmax) {
  Preconditioner pre;
  const std::size_t s = phi_s.shape(0), c = objective.cols(), k = objective.outputs();
  const double weight = double(objective.total_rows()) / double(std::max<std::size_t>(s, 1));
  Matrix y = xt::empty<double>({s, k});
  cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(s),
                       Index(k), Index(c), 1.0, phi_s.data(), Index(c), w.data(), Index(k), 0.0,
                       y.data(), Index(k));
  apply_link(objective.link(), y);
  Matrix scaled = xt::empty<double>({s, c});
  const WeightPenalty* penalty = objective.weight_penalty();
  for (std::size_t out = 0; out < k; ++out) {
    for (std::size_t n = 0; n < s; ++n) {
      const double v = objective.link() == Link::Identity ? 1.0 : y(n, out) * (1.0 - y(n, out));
      const double root = std::sqrt(std::max(v, 0.0));
      for (std::size_t j = 0; j < c; ++j) scaled(n, j) = root * phi_s(n, j);
    }
    Matrix gram = xt::zeros<double>({c, c});
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(c),
                         Index(c), Index(s), weight, scaled.data(), Index(c), scaled.data(),
                         Index(c), 0.0, gram.data(), Index(c));
    pre.flops += 2.0 * double(s) * double(c) * double(c);
    if (penalty) {
      // The penalty's Hessian of column k alone (exact for penalties that treat the columns
      // alike and separately: weight decay, rkhs).
      Matrix column = xt::empty<double>({c, std::size_t(1)});
      for (std::size_t i = 0; i < c; ++i) column(i, 0) = w(i, out);
      penalty->add_hessian(column, gram);
    }
    if (!factor_with_jitter(gram, pre.jitter)) {
      // Curvature nearly 0 at every sketch row and no penalty: the identity for this output.
      gram = xt::eye<double>(c);
      pre.jitter = std::max(pre.jitter, 1.0);
    }
    pre.flops += double(c) * double(c) * double(c) / 3;
    pre.factors.push_back(std::move(gram));
  }
  pre.null_rows = softmax_null_rows(objective, w, exact_softmax);
  if (exact_softmax && penalty) {
    // The exact softmax Hessian has no data curvature along E = 1_K x I_C (one vector added
    // to every output's weights leaves Y unchanged, eq. 13 rows summing to 0): there
    // E^T H E = H_pen of one column, which the blocks above overstate by their data curvature.
    // A coarse correction on those directions (additive two-level preconditioner) gives them
    // the penalty's curvature instead. Without a penalty they are H's null space: none.
    Matrix coarse = xt::zeros<double>({c, c});
    Matrix column = xt::empty<double>({c, std::size_t(1)});
    for (std::size_t i = 0; i < c; ++i) {
      double sum = 0;
      for (std::size_t out = 0; out < k; ++out) sum += w(i, out);
      column(i, 0) = sum / double(k);
    }
    penalty->add_hessian(column, coarse);
    double largest = 0;
    for (std::size_t i = 0; i < c; ++i) largest = std::max(largest, coarse(i, i));
    std::vector<bool> skipped(c, false);
    for (std::size_t i = 0; i < c; ++i)
      if (!(coarse(i, i) > 1e-14 * largest)) {  // PSD: its row and column are 0 too
        skipped[i] = true;
        for (std::size_t j = 0; j < c; ++j) coarse(i, j) = coarse(j, i) = 0.0;
        coarse(i, i) = 1.0;
      }
    double jitter = 0;
    if (largest > 0 && factor_with_jitter(coarse, jitter)) {
      // Kept when well conditioned: a near-singular penalty would amplify rounding along H's
      // null space without helping CG.
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      for (std::size_t i = 0; i < c; ++i)
        if (!skipped[i]) lo = std::min(lo, coarse(i, i)), hi = std::max(hi, coarse(i, i));
      if (hi / lo < 1e6) {
        pre.coarse = std::move(coarse);
        pre.skipped = std::move(skipped);
        pre.jitter = std::max(pre.jitter, jitter);
      }
    }
    pre.flops += double(c) * double(c) * double(c) / 3;
  }
  return pre;
}

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
                 std::size_t cap) {
  const std::size_t c = objective.cols(), k = objective.outputs(), p = objective.size();
  CgStep step;
  step.d = xt::zeros<double>({c, k});
  Matrix r = -g, z, q;
  pre.apply(r, z);
  Matrix dir = z;
  double rz = glm::dot(r, z);
  const double target = std::max(eta * std::sqrt(glm::dot(g, g)), floor);
  objective.add_flops(4.0 * double(p));
  if (std::sqrt(glm::dot(r, r)) <= target) {
    step.converged = true;
    return step;
  }
  while (step.iterations < cap) {
    objective.hessian_product(w, kind, dir, q);
    ++step.iterations;
    const double curvature = glm::dot(dir, q);
    if (!(curvature > 0)) {
      // Zero or negative curvature along dir (a singular Hessian: the exact softmax without a
      // penalty): stop with the iterate so far, or the preconditioned gradient on the first.
      if (step.iterations == 1) step.d = dir;
      step.curvature_stop = true;
      break;
    }
    const double alpha = rz / curvature;
    step.d = glm::axpy(alpha, dir, step.d);
    r = glm::axpy(-alpha, q, r);
    if (std::sqrt(glm::dot(r, r)) <= target) {
      step.converged = true;
      break;
    }
    pre.apply(r, z);
    const double rz_next = glm::dot(r, z);
    const double beta = rz_next / rz;
    rz = rz_next;
    dir = glm::axpy(beta, dir, z);
    // Three dots, three axpys, the preconditioner's two triangular solves per output.
    objective.add_flops(12.0 * double(p) + 2.0 * double(p) * double(c));
  }
  return step;
}

// The converged weights of IRLS on every subsample_stride-th row block (irls.hpp), or nothing
// when the rows are too few, the link is the identity (one exact step from any start) or that
// fit did not converge. Its iterations and rows are the report's figures subsample_*.
std::optional<Matrix> subsample_start(glm::Objective& objective, const IrlsOptions& options,
                                      FitContext& ctx, const DesignMatrix* sketch) {
  if (!options.subsample_start || objective.link() == Link::Identity ||
      objective.total_rows() < subsample_start_rows)
    return std::nullopt;
  const glm::BlockSubsample sub = glm::block_subsample(objective, subsample_stride);
  FitContext inner(0, ctx.threads);  // its own report; nothing in it is random
  inner.component = ctx.component;
  Matrix w = irls(*sub.objective, options, inner, sketch);
  objective.add_flops(sub.objective->counters().flops);
  ctx.report.figures["subsample_rows"] = double(sub.rows);
  ctx.report.figures["subsample_iterations"] = double(inner.report.iterations);
  if (!inner.report.converged() || !glm::all_finite(w)) return std::nullopt;
  return w;
}

}  // namespace

bool uses_cg(const IrlsOptions& options, std::size_t weights, bool sketch) {
  return options.solver == IrlsSolver::Cg ||
         (options.solver == IrlsSolver::Auto && sketch && weights > max_direct_weights);
}

Matrix irls(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx,
            const DesignMatrix* sketch) {
  using glm::HessianKind;
  const std::size_t c = objective.cols(), k = objective.outputs(), p = objective.size();
  const glm::StoppingRule rule{options.tolerance, options.iterations};
  // Newton-CG never forms the Hessian, so the exact one has no size limit there.
  const bool cg = uses_cg(options, p, sketch != nullptr);
  const bool too_large =
      !cg && objective.link() == Link::Softmax && options.hessian == HessianKind::Exact &&
      p > glm::max_exact_softmax_weights;
  if (too_large) {
    std::ostringstream m;
    m << "solving the exact softmax Hessian of K (M + 1) = " << p << " weights (" << k
      << " outputs, " << c << " basis columns) would cost ~"
      << (9.0 * double(p) * double(p) * double(p) / 1e9) << " GFLOP per iteration; above " << glm::max_exact_softmax_weights
      << " weights the block-diagonal Hessian (hessian = \"simplified\") is used instead";
    ctx.warn("exact-hessian-too-large", m.str(),
             "set hessian = \"simplified\" to say so, or use fewer centres or output plugin "
             "\"scg\"");
  }
  const bool softmax_exact = objective.link() == Link::Softmax &&
                             options.hessian == HessianKind::Exact && !too_large;
  const HessianKind effective = too_large ? HessianKind::Simplified : options.hessian;
  const HessianKind kind = softmax_exact ? HessianKind::Exact : effective;
  const bool block_diagonal =
      objective.link() == Link::Softmax && kind == HessianKind::Simplified;
  // The paper solves the exact softmax system by SVD: it is singular by construction.
  const glm::SolveMethod method =
      softmax_exact ? glm::SolveMethod::Eigen : glm::SolveMethod::CholeskyFirst;
  // Rank the exact softmax Hessian loses by construction (one vector per basis function).
  const std::size_t expected_rank = softmax_exact && !objective.penalised() ? p - c : p;

  glm::Trace trace(ctx, objective, irls_id);
  // Iteration 1: the subsample's weights on many rows, else eq. 12 on the smoothed targets.
  std::optional<Matrix> warm = subsample_start(objective, options, ctx, sketch);
  Matrix w = warm ? std::move(*warm) : glm::smoothed_target_start(objective);
  if (!glm::all_finite(w)) {
    ctx.warn("non-finite-start",
             "the weighted least-squares fit of the smoothed targets gave non-finite weights; "
             "starting from zero weights instead",
             "check the design matrix for non-finite basis values (basis parameters)");
    w = xt::zeros<double>({c, k});
  }
  // The direct path's passes compute the Hessian with the gradient; Newton-CG's the gradient
  // alone (its Hessian-vector products come in the CG iterations).
  const auto evaluate = [&](const Matrix& at, Matrix& grad, Matrix& hess) {
    return cg ? objective.gradient(at, grad) : objective.hessian(at, kind, grad, hess);
  };
  const Matrix phi_s = cg && sketch ? sketch->materialise() : Matrix();
  Matrix g, h, g_new, h_new;
  double error = evaluate(w, g, h);
  const bool may_reuse =
      !cg && options.reuse_hessian && objective.total_rows() >= hessian_reuse_rows;
  std::size_t reused = 0;  // iterates whose Hessian was kept from an earlier one
  bool h_kept = false;     // h was computed at an earlier iterate than w
  // A kept Hessian that gives no usable step is replaced by w's own before the step is retried.
  const auto fresh_hessian = [&] {
    error = evaluate(w, g, h);
    h_kept = false;
  };
  std::size_t iteration = 1;
  trace.record(iteration, error);

  std::size_t halvings_total = 0, solves = 0, rank_deficient = 0, last_rank = p;
  // Newton-CG: CG iterations (Hessian-vector products) per Newton step, and the steps that
  // stopped at the cap or at non-positive curvature.
  std::vector<double> cg_iterations;
  std::size_t cg_capped = 0, cg_curvature = 0;
  double first_gradient_norm = 0, largest_jitter = 0;
  std::optional<glm::Stop> stop;  // empty: the iteration cap
  while (iteration < rule.iterations) {
    if (glm::looks_separable(objective, error)) {
      trace.warn_separable(error, w, iteration);
      std::ostringstream m;
      m << "the classes are separable: at iteration " << iteration << " the error " << error
        << " could fall further only with unbounded weights";
      stop = glm::Stop{Termination::NoProgress, m.str()};
      break;
    }
    // Newton / Fisher scoring direction (eq. 10): H d = -g.
    Matrix d;
    std::size_t solved_rank = p;
    if (cg) {
      // Truncated at eta ||g||, eta = min(1/2, sqrt(||g|| / ||g_1||)) (irls.hpp), and never
      // below 1e-12 ||g_1||: beneath it the residual is the products' rounding (measured: a
      // last step at ||g|| ~ 1e-14 ||g_1|| ran to the cap without getting there).
      const double norm = std::sqrt(glm::dot(g, g));
      if (first_gradient_norm == 0) first_gradient_norm = norm;
      const double eta = std::min(0.5, std::sqrt(norm / std::max(first_gradient_norm, 1e-300)));
      Preconditioner pre =
          sketch ? sketch_preconditioner(objective, phi_s, w, softmax_exact) : Preconditioner();
      if (!sketch) pre.null_rows = softmax_null_rows(objective, w, softmax_exact);
      objective.add_flops(pre.flops);
      largest_jitter = std::max(largest_jitter, pre.jitter);
      CgStep step = newton_cg(objective, w, g, kind, pre, eta, 1e-12 * first_gradient_norm,
                              options.cg_iterations);
      if (step.iterations == 0) {
        // ||g|| already at the floor: the minimum to the products' rounding.
        std::ostringstream m;
        m << "gradient norm " << norm << " at iteration " << iteration << " is below 1e-12 of "
          << "the first (" << first_gradient_norm << "): at the minimum to working precision";
        stop = glm::Stop{Termination::Converged, m.str()};
        break;
      }
      cg_iterations.push_back(double(step.iterations));
      if (!step.converged && !step.curvature_stop) ++cg_capped;
      if (step.curvature_stop) ++cg_curvature;
      d = std::move(step.d);
      ++solves;
    } else {
      Vector minus_g = glm::flatten(g);
      for (double& v : minus_g) v = -v;
      // The paper's pseudo-inverse (no eigenvalue floor).
      const glm::SymmetricSolve solved = block_diagonal
                                             ? glm::solve_block_diagonal(h, minus_g, k, method)
                                             : glm::solve_symmetric(h, minus_g, method);
      objective.add_flops(solved.flops);
      ++solves;
      last_rank = solved_rank = solved.rank;
      if (solved.rank < expected_rank) ++rank_deficient;
      d = glm::unflatten(solved.x, c, k);
    }
    const double slope = glm::dot(g, d);  // negative for a descent direction
    objective.add_flops(glm::flops::dot(p));
    if (h_kept && (!glm::all_finite(d) || slope >= 0)) {
      fresh_hessian();
      continue;
    }
    if (!glm::all_finite(d) || slope >= 0) {
      if (slope >= 0 && glm::max_abs(g) == 0) {
        stop = glm::Stop{Termination::Converged,
                         "zero gradient at iteration " + std::to_string(iteration)};
      } else {
        std::ostringstream m;
        m << "the Newton direction at iteration " << iteration
          << (glm::all_finite(d) ? " is not a descent direction" : " is not finite")
          << " (rank " << solved_rank << " of " << p << "); keeping the current weights";
        ctx.warn("newton-step", m.str(),
                 "add [weight-penalty] plugin = \"weight-decay\" with alpha > 0");
        stop = glm::Stop{Termination::NumericalFailure, m.str()};
      }
      break;
    }

    Matrix w_new = w + d;
    objective.add_flops(glm::flops::axpy(p));
    // Near the minimum (a small predicted decrease) the next iterate keeps this Hessian.
    bool keep_h = may_reuse && -slope / 2 < hessian_reuse_decrease * std::fabs(error);
    double error_new = keep_h ? objective.gradient(w_new, g_new) : evaluate(w_new, g_new, h_new);
    if (options.step_control) {
      const glm::ArmijoResult step = glm::armijo_backtracking(
          error, slope, error_new,
          [&](double t) {
            w_new = glm::axpy(t, d, w);
            objective.add_flops(glm::flops::axpy(p));
            return objective.value(w_new);
          },
          options.line_search);
      error_new = step.value;
      halvings_total += step.halvings;
      if (!step.accepted && h_kept) {
        fresh_hessian();
        continue;
      }
      if (!step.accepted) {
        // No decrease along the Newton direction even for tiny steps: the current weights are
        // the minimum to working precision, or the direction is useless.
        const double decrement = -slope;  // g^T H^-1 g, the Newton decrement squared
        const bool converged = decrement < options.tolerance;
        std::ostringstream m;
        m << "no decrease of the error along the Newton direction after "
          << options.line_search.max_halvings << " halvings at iteration " << iteration
          << " (Newton decrement " << decrement << ")";
        if (!converged) {
          m << "; keeping the current weights";
          ctx.warn("step-control", m.str(), "output.iterations or weight-penalty");
        } else {
          m << " < tolerance " << options.tolerance << ": at the minimum to working precision";
        }
        stop = glm::Stop{converged ? Termination::Converged : Termination::NoProgress, m.str()};
        break;
      }
      if (step.halvings > 0) {
        evaluate(w_new, g_new, h_new);
        keep_h = false;
      }
    } else if (h_kept && (!std::isfinite(error_new) || error_new > error)) {
      fresh_hessian();
      continue;
    } else if (!std::isfinite(error_new) || error_new > error) {
      // NETLAB's glmtrain: "Error has increased: terminating", keeping the previous weights.
      std::ostringstream m;
      m << "the full Newton step at iteration " << iteration + 1 << " raised the error from "
        << error << " to " << error_new << "; stopped with the previous weights (NETLAB's rule)";
      ctx.warn("error-increased", m.str(), "output.step_control = true");
      stop = glm::Stop{Termination::NoProgress, m.str()};
      break;
    }
    ++iteration;
    const bool done = rule.satisfied(w_new, w, error_new, error);
    if (keep_h && !done && glm::max_abs(g_new) > 0.25 * glm::max_abs(g)) {
      // The kept Hessian no longer quarters the gradient: a fresh one at the new iterate.
      evaluate(w_new, g_new, h_new);
      keep_h = false;
    }
    if (keep_h) ++reused;
    w = std::move(w_new);
    error = error_new;
    g = std::move(g_new);
    if (!keep_h) h = std::move(h_new);
    h_kept = keep_h;
    g_new = Matrix();
    h_new = Matrix();
    trace.record(iteration, error);
    if (done) {
      stop = glm::Stop{Termination::Converged, rule.met_at(iteration)};
      break;
    }
  }
  if (rank_deficient > 0 && !objective.penalised()) {
    // Flat directions beyond the link's own invariance: the minimum is not unique, and which
    // point of it the steps reach depends on rounding (and so on the BLAS and the CPU).
    std::ostringstream m;
    m << rank_deficient << " of " << solves << " Newton systems had rank below " << expected_rank
      << " (the last: rank " << last_rank << " of " << p
      << " weights): the basis outputs are collinear or saturated on the training rows, so the "
         "data do not determine the weights and the fit depends on rounding";
    ctx.warn("rank-deficient", m.str(),
             "add [weight-penalty] plugin = \"weight-decay\" with alpha > 0, or fewer centres");
  }
  ctx.report.figures["step_halvings"] = double(halvings_total);
  ctx.report.figures["hessians_reused"] = double(reused);
  ctx.report.figures["rank_deficient_solves"] = double(rank_deficient);
  ctx.report.figures["last_rank"] = double(last_rank);
  ctx.report.figures["solver_cg"] = cg ? 1.0 : 0.0;
  if (cg) {
    double total = 0, most = 0;
    for (const double n : cg_iterations) total += n, most = std::max(most, n);
    ctx.report.series["cg_iterations"] = cg_iterations;  // per Newton step
    ctx.report.figures["cg_iterations"] = total;
    ctx.report.figures["cg_iterations_max"] = most;
    ctx.report.figures["cg_capped_steps"] = double(cg_capped);
    ctx.report.figures["cg_curvature_stops"] = double(cg_curvature);
    ctx.report.figures["hessian_products"] = double(objective.counters().hessian_products);
    ctx.report.figures["preconditioner"] = sketch ? 1.0 : 0.0;
    ctx.report.figures["preconditioner_jitter"] = largest_jitter;
    if (cg_capped > 0) {
      std::ostringstream m;
      m << cg_capped << " of " << solves << " Newton systems stopped at the cap of "
        << options.cg_iterations << " CG iterations above their residual target (the steps "
        << "were taken inexact)";
      ctx.warn("cg-iteration-cap", m.str(), "output.cg_iterations, or output.solver = \"direct\"");
    }
  }
  trace.finish(iteration, stop, w, error, rule.iterations);
  return w;
}

WorkingMemory irls_memory(std::size_t rows, std::size_t centres, std::size_t outputs,
                          bool cg) {
  const double m1 = double(centres) + 1.0, k = double(outputs), weights = k * m1;
  // Newton-CG's start is still eq. 12's weighted least squares, formed as one (K (M + 1))^2
  // system (block diagonal; glm::smoothed_target_start): counted, so that a fit it cannot hold
  // is refused before it starts.
  if (cg)
    return glm::trainer_memory(rows, centres, outputs, weights * weights + (k + 2.0) * m1 * m1,
                               "the start's weighted least-squares system, (K (M + 1))^2 "
                               "doubles, and Newton-CG's preconditioner, K + 2 (M + 1)^2 "
                               "doubles",
                               ", or output plugin \"scg\"");
  if (outputs > 1)
    return glm::trainer_memory(rows, centres, outputs, 4.0 * weights * weights,
                               "the softmax Hessian and its solve, 4 (K (M + 1))^2 doubles",
                               ", or output plugin \"scg\"");
  return glm::trainer_memory(rows, centres, outputs, 4.0 * k * m1 * m1,
                             "one Hessian per output, 4 K (M + 1)^2 doubles");
}

WorkingMemory Irls::working_memory(std::size_t rows, std::size_t centres,
                                   std::size_t outputs) const {
  return irls_memory(rows, centres, outputs,
                     uses_cg(options_, outputs * (centres + 1), centres > 0));
}

OutputWeights Irls::fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                        FitContext& ctx) {
  return glm::fit_output_weights(
      problem, penalty, options_.link, irls_id, [&](glm::Objective& objective) {
        // The design at the centres as rows, the CG preconditioner's sketch (irls.hpp): made
        // only when the Newton systems are solved by CG.
        std::optional<DesignMatrix> sketch;
        if (problem.centres.count() > 0 &&
            uses_cg(options_, objective.size(), true)) {
          sketch.emplace(problem.centres.means, problem.centres, problem.basis, false, 0);
          sketch->set_threads(problem.design.threads());
        }
        return irls(objective, options_, ctx, sketch ? &*sketch : nullptr);
      });
}

}  // namespace radial::plugins
