// IRLS / Fisher scoring (see irls.hpp).
#include "irls.hpp"

#include <cmath>
#include <optional>
#include <sstream>

#include "radial/glm/block_subsample.hpp"
#include "radial/glm/flops.hpp"
#include "radial/glm/line_search.hpp"
#include "radial/glm/newton.hpp"
#include "radial/glm/training.hpp"
#include "radial/glm/vectors.hpp"

namespace radial::plugins {

namespace {

// The converged weights of IRLS on every subsample_stride-th row block (irls.hpp), or nothing
// when the rows are too few, the link is the identity (one exact step from any start) or that
// fit did not converge. Its iterations and rows are the report's figures subsample_*.
std::optional<Matrix> subsample_start(glm::Objective& objective, const IrlsOptions& options,
                                      FitContext& ctx) {
  if (!options.subsample_start || objective.link() == Link::Identity ||
      objective.total_rows() < subsample_start_rows)
    return std::nullopt;
  const glm::BlockSubsample sub = glm::block_subsample(objective, subsample_stride);
  FitContext inner(0, ctx.threads);  // its own report; nothing in it is random
  inner.component = ctx.component;
  Matrix w = irls(*sub.objective, options, inner);
  objective.add_flops(sub.objective->counters().flops);
  ctx.report.figures["subsample_rows"] = double(sub.rows);
  ctx.report.figures["subsample_iterations"] = double(inner.report.iterations);
  if (!inner.report.converged() || !glm::all_finite(w)) return std::nullopt;
  return w;
}

}  // namespace

Matrix irls(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx) {
  using glm::HessianKind;
  const std::size_t c = objective.cols(), k = objective.outputs(), p = objective.size();
  const glm::StoppingRule rule{options.tolerance, options.iterations};
  const bool too_large =
      objective.link() == Link::Softmax && options.hessian == HessianKind::Exact &&
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
  std::optional<Matrix> warm = subsample_start(objective, options, ctx);
  Matrix w = warm ? std::move(*warm) : glm::smoothed_target_start(objective);
  if (!glm::all_finite(w)) {
    ctx.warn("non-finite-start",
             "the weighted least-squares fit of the smoothed targets gave non-finite weights; "
             "starting from zero weights instead",
             "check the design matrix for non-finite basis values (basis parameters)");
    w = xt::zeros<double>({c, k});
  }
  Matrix g, h, g_new, h_new;
  double error = objective.hessian(w, kind, g, h);
  const bool may_reuse = options.reuse_hessian && objective.total_rows() >= hessian_reuse_rows;
  std::size_t reused = 0;  // iterates whose Hessian was kept from an earlier one
  bool h_kept = false;     // h was computed at an earlier iterate than w
  // A kept Hessian that gives no usable step is replaced by w's own before the step is retried.
  const auto fresh_hessian = [&] {
    error = objective.hessian(w, kind, g, h);
    h_kept = false;
  };
  std::size_t iteration = 1;
  trace.record(iteration, error);

  std::size_t halvings_total = 0, solves = 0, rank_deficient = 0, last_rank = p;
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
    Vector minus_g = glm::flatten(g);
    for (double& v : minus_g) v = -v;
    // The paper's pseudo-inverse (no eigenvalue floor).
    const glm::SymmetricSolve solved = block_diagonal
                                           ? glm::solve_block_diagonal(h, minus_g, k, method)
                                           : glm::solve_symmetric(h, minus_g, method);
    objective.add_flops(solved.flops);
    ++solves;
    last_rank = solved.rank;
    if (solved.rank < expected_rank) ++rank_deficient;
    const Matrix d = glm::unflatten(solved.x, c, k);
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
          << " (rank " << solved.rank << " of " << p << "); keeping the current weights";
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
    double error_new = keep_h ? objective.gradient(w_new, g_new)
                              : objective.hessian(w_new, kind, g_new, h_new);
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
        objective.hessian(w_new, kind, g_new, h_new);
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
      objective.hessian(w_new, kind, g_new, h_new);
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
  trace.finish(iteration, stop, w, error, rule.iterations);
  return w;
}

WorkingMemory irls_memory(std::size_t rows, std::size_t centres, std::size_t outputs) {
  const double m1 = double(centres) + 1.0, k = double(outputs), weights = k * m1;
  if (outputs > 1)
    return glm::trainer_memory(rows, centres, outputs, 4.0 * weights * weights,
                               "the softmax Hessian and its solve, 4 (K (M + 1))^2 doubles",
                               ", or output plugin \"scg\"");
  return glm::trainer_memory(rows, centres, outputs, 4.0 * k * m1 * m1,
                             "one Hessian per output, 4 K (M + 1)^2 doubles");
}

}  // namespace radial::plugins
