// IRLS / Fisher scoring (see irls.hpp). One run is the class IrlsRun: its start, and per
// iteration the Newton direction, the descent check, the step (with its line search) and the
// acceptance, each a method, as Ceres splits its trust-region minimiser; Newton-CG's
// preconditioner and CG loop are in irls_newton_cg.cpp.
#include "irls.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "irls_newton_cg.hpp"
#include "radial/glm/block_subsample.hpp"
#include "radial/glm/flops.hpp"
#include "radial/optim/line_search.hpp"
#include "radial/glm/newton.hpp"
#include "radial/glm/training.hpp"
#include "radial/glm/vectors.hpp"
#include "radial/network/link.hpp"

namespace radial::plugins {

namespace {

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

// How one fit's Newton systems are formed and solved.
struct NewtonSystem {
  bool cg = false;             // Newton-CG: Hessian-vector products, never the Hessian formed
  bool softmax_exact = false;  // the exact softmax Hessian (singular by construction)
  glm::HessianKind kind = glm::HessianKind::Exact;  // what is formed, or multiplied by
  bool block_diagonal = false;  // softmax with the simplified Hessian: one block per output
  glm::SolveMethod method = glm::SolveMethod::CholeskyFirst;
  std::size_t expected_rank = 0;  // the rank the Hessian keeps (exact softmax: P - C)
};

// The Newton system of `options` for `objective`: the exact softmax Hessian drops to the
// simplified one, with a warning, when the direct path could not afford it.
NewtonSystem newton_system(const glm::Objective& objective, const IrlsOptions& options,
                           FitContext& ctx, bool cg) {
  using glm::HessianKind;
  const std::size_t c = objective.cols(), k = objective.outputs(), p = objective.size();
  // Newton-CG never forms the Hessian, so the exact one has no size limit there.
  const bool too_large =
      !cg && objective.link() == Link::Softmax && options.hessian == HessianKind::Exact &&
      p > glm::max_exact_softmax_weights;
  if (too_large) {
    std::ostringstream m;
    m << "solving the exact softmax Hessian of K (M + 1) = " << p << " weights (" << k
      << " outputs, " << c << " basis columns) would cost ~"
      << (9.0 * double(p) * double(p) * double(p) / 1e9) << " GFLOP per iteration; above "
      << glm::max_exact_softmax_weights
      << " weights the block-diagonal Hessian (hessian = \"simplified\") is used instead";
    ctx.warn("exact-hessian-too-large", m.str(),
             "set hessian = \"simplified\" to say so, or use fewer centres or output plugin "
             "\"scg\"");
  }
  NewtonSystem system;
  system.cg = cg;
  system.softmax_exact = objective.link() == Link::Softmax &&
                         options.hessian == HessianKind::Exact && !too_large;
  const HessianKind effective = too_large ? HessianKind::Simplified : options.hessian;
  system.kind = system.softmax_exact ? HessianKind::Exact : effective;
  system.block_diagonal =
      objective.link() == Link::Softmax && system.kind == HessianKind::Simplified;
  // The paper solves the exact softmax system by SVD: it is singular by construction.
  system.method = system.softmax_exact ? glm::SolveMethod::Eigen : glm::SolveMethod::CholeskyFirst;
  // Rank the exact softmax Hessian loses by construction (one vector per basis function).
  system.expected_rank = system.softmax_exact && !objective.penalised() ? p - c : p;
  return system;
}

// One IRLS run: the iterate w with its error, gradient g and Hessian h, and the counts the
// report gives. minimise() is the loop; each step of an iteration is a method.
class IrlsRun {
 public:
  IrlsRun(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx,
          const DesignMatrix* sketch)
      : objective_(objective),
        options_(options),
        ctx_(ctx),
        sketch_(sketch),
        c_(objective.cols()),
        k_(objective.outputs()),
        p_(objective.size()),
        rule_{options.tolerance, options.iterations},
        system_(newton_system(objective, options, ctx, uses_cg(options, p_, sketch != nullptr))),
        trace_(ctx, objective, irls_id),
        last_rank_(p_) {}

  Matrix minimise();

 private:
  // What an iteration's step ends in: the next iteration, the same one again with a fresh
  // Hessian at w (a kept Hessian gave no usable step), or the end of the fit (stop_ says why).
  enum class Outcome { Next, Retry, Stop };

  // The error at `at`, with the gradient, and the Hessian on the direct path (Newton-CG's
  // Hessian-vector products come in the CG iterations).
  double evaluate(const Matrix& at, Matrix& grad, Matrix& hess) {
    return system_.cg ? objective_.gradient(at, grad)
                      : objective_.hessian(at, system_.kind, grad, hess);
  }
  // A kept Hessian that gives no usable step is replaced by w's own before the step is retried.
  void fresh_hessian() {
    error_ = evaluate(w_, g_, h_);
    h_kept_ = false;
  }
  void start();
  bool separable();
  bool newton_direction(Matrix& d, std::size_t& solved_rank);
  bool cg_direction(Matrix& d);
  void direct_direction(Matrix& d, std::size_t& solved_rank);
  Outcome check_descent(const Matrix& d, double slope, std::size_t solved_rank);
  Outcome step(const Matrix& d, double slope);
  Outcome controlled_step(const Matrix& d, double slope, Matrix& w_new, double& error_new,
                          bool& keep_h);
  Outcome accept(Matrix& w_new, double error_new, bool keep_h);
  void report();

  glm::Objective& objective_;
  const IrlsOptions& options_;
  FitContext& ctx_;
  const DesignMatrix* sketch_;
  const std::size_t c_, k_, p_;
  const glm::StoppingRule rule_;
  const NewtonSystem system_;
  glm::Trace trace_;
  Matrix phi_s_;  // the sketch's design (Newton-CG's preconditioner)
  bool may_reuse_ = false;  // Hessian reuse (irls.hpp) applies
  Matrix w_, g_, h_, g_new_, h_new_;
  double error_ = 0;
  std::size_t reused_ = 0;  // iterates whose Hessian was kept from an earlier one
  bool h_kept_ = false;     // h was computed at an earlier iterate than w
  std::size_t iteration_ = 1;
  std::size_t halvings_total_ = 0, solves_ = 0, rank_deficient_ = 0, last_rank_;
  // Newton-CG: CG iterations (Hessian-vector products) per Newton step, and the steps that
  // stopped at the cap or at non-positive curvature.
  std::vector<double> cg_iterations_;
  std::size_t cg_capped_ = 0, cg_curvature_ = 0;
  double first_gradient_norm_ = 0, largest_jitter_ = 0;
  std::optional<glm::Stop> stop_;  // empty: the iteration cap
};

// Iteration 1: the subsample's weights on many rows, else eq. 12 on the smoothed targets.
void IrlsRun::start() {
  std::optional<Matrix> warm = subsample_start(objective_, options_, ctx_, sketch_);
  w_ = warm ? std::move(*warm) : glm::smoothed_target_start(objective_);
  if (!glm::all_finite(w_)) {
    ctx_.warn("non-finite-start",
              "the weighted least-squares fit of the smoothed targets gave non-finite weights; "
              "starting from zero weights instead",
              "check the design matrix for non-finite basis values (basis parameters)");
    w_ = xt::zeros<double>({c_, k_});
  }
  phi_s_ = system_.cg && sketch_ ? sketch_->materialise() : Matrix();
  error_ = evaluate(w_, g_, h_);
  may_reuse_ = !system_.cg && options_.reuse_hessian &&
               objective_.total_rows() >= hessian_reuse_rows;
  trace_.record(iteration_, error_);
}

Matrix IrlsRun::minimise() {
  start();
  while (iteration_ < rule_.iterations) {
    if (separable()) break;
    Matrix d;
    std::size_t solved_rank = p_;
    if (!newton_direction(d, solved_rank)) break;
    const double slope = glm::dot(g_, d);  // negative for a descent direction
    objective_.add_flops(glm::flops::dot(p_));
    Outcome outcome = check_descent(d, slope, solved_rank);
    if (outcome == Outcome::Next) outcome = step(d, slope);
    if (outcome == Outcome::Retry) fresh_hessian();
    if (outcome == Outcome::Stop) break;
  }
  report();
  trace_.finish(iteration_, stop_, w_, error_, rule_.iterations);
  return w_;
}

// Separable classes stop the fit: the error could fall further only with unbounded weights.
bool IrlsRun::separable() {
  if (!glm::looks_separable(objective_, error_)) return false;
  trace_.warn_separable(error_, w_, iteration_);
  std::ostringstream m;
  m << "the classes are separable: at iteration " << iteration_ << " the error " << error_
    << " could fall further only with unbounded weights";
  stop_ = glm::Stop{Termination::NoProgress, m.str()};
  return true;
}

// Newton / Fisher scoring direction (eq. 10): H d = -g. False: the fit stops (stop_).
bool IrlsRun::newton_direction(Matrix& d, std::size_t& solved_rank) {
  if (system_.cg) return cg_direction(d);
  direct_direction(d, solved_rank);
  return true;
}

bool IrlsRun::cg_direction(Matrix& d) {
  // Truncated at eta ||g||, eta = min(1/2, sqrt(||g|| / ||g_1||)) (irls.hpp), and never
  // below 1e-12 ||g_1||: beneath it the residual is the products' rounding (measured: a
  // last step at ||g|| ~ 1e-14 ||g_1|| ran to the cap without getting there).
  const double norm = std::sqrt(glm::dot(g_, g_));
  if (first_gradient_norm_ == 0) first_gradient_norm_ = norm;
  const double eta = std::min(0.5, std::sqrt(norm / std::max(first_gradient_norm_, 1e-300)));
  irls_cg::Preconditioner pre =
      sketch_ ? irls_cg::sketch_preconditioner(objective_, phi_s_, w_, system_.softmax_exact)
              : irls_cg::Preconditioner();
  if (!sketch_) pre.null_rows = irls_cg::softmax_null_rows(objective_, w_, system_.softmax_exact);
  objective_.add_flops(pre.flops);
  largest_jitter_ = std::max(largest_jitter_, pre.jitter);
  irls_cg::CgStep step = irls_cg::newton_cg(objective_, w_, g_, system_.kind, pre, eta,
                                            1e-12 * first_gradient_norm_,
                                            options_.cg_iterations);
  if (step.iterations == 0) {
    // ||g|| already at the floor: the minimum to the products' rounding.
    std::ostringstream m;
    m << "gradient norm " << norm << " at iteration " << iteration_ << " is below 1e-12 of "
      << "the first (" << first_gradient_norm_ << "): at the minimum to working precision";
    stop_ = glm::Stop{Termination::Converged, m.str()};
    return false;
  }
  cg_iterations_.push_back(double(step.iterations));
  if (!step.converged && !step.curvature_stop) ++cg_capped_;
  if (step.curvature_stop) ++cg_curvature_;
  d = std::move(step.d);
  ++solves_;
  return true;
}

void IrlsRun::direct_direction(Matrix& d, std::size_t& solved_rank) {
  Vector minus_g = glm::flatten(g_);
  for (double& v : minus_g) v = -v;
  // The paper's pseudo-inverse (no eigenvalue floor).
  const glm::SymmetricSolve solved =
      system_.block_diagonal ? glm::solve_block_diagonal(h_, minus_g, k_, system_.method)
                             : glm::solve_symmetric(h_, minus_g, system_.method);
  objective_.add_flops(solved.flops);
  ++solves_;
  last_rank_ = solved_rank = solved.rank;
  if (solved.rank < system_.expected_rank) ++rank_deficient_;
  d = glm::unflatten(solved.x, c_, k_);
}

// A direction that is not finite or not downhill: retried with a fresh Hessian when the
// Hessian was kept, else the end of the fit.
IrlsRun::Outcome IrlsRun::check_descent(const Matrix& d, double slope, std::size_t solved_rank) {
  if (glm::all_finite(d) && !(slope >= 0)) return Outcome::Next;
  if (h_kept_) return Outcome::Retry;
  if (slope >= 0 && glm::max_abs(g_) == 0) {
    stop_ = glm::Stop{Termination::Converged,
                      "zero gradient at iteration " + std::to_string(iteration_)};
  } else {
    std::ostringstream m;
    m << "the Newton direction at iteration " << iteration_
      << (glm::all_finite(d) ? " is not a descent direction" : " is not finite")
      << " (rank " << solved_rank << " of " << p_ << "); keeping the current weights";
    ctx_.warn("newton-step", m.str(),
              "add [weight-penalty] plugin = \"weight-decay\" with alpha > 0");
    stop_ = glm::Stop{Termination::NumericalFailure, m.str()};
  }
  return Outcome::Stop;
}

// The step along d: with step control the Armijo line search, else the full Newton step
// unless it raises the error (NETLAB's rule).
IrlsRun::Outcome IrlsRun::step(const Matrix& d, double slope) {
  Matrix w_new = w_ + d;
  objective_.add_flops(glm::flops::axpy(p_));
  // Near the minimum (a small predicted decrease) the next iterate keeps this Hessian.
  bool keep_h = may_reuse_ && -slope / 2 < hessian_reuse_decrease * std::fabs(error_);
  double error_new =
      keep_h ? objective_.gradient(w_new, g_new_) : evaluate(w_new, g_new_, h_new_);
  if (options_.step_control) {
    const Outcome outcome = controlled_step(d, slope, w_new, error_new, keep_h);
    if (outcome != Outcome::Next) return outcome;
  } else if (!std::isfinite(error_new) || error_new > error_) {
    if (h_kept_) return Outcome::Retry;
    // NETLAB's glmtrain: "Error has increased: terminating", keeping the previous weights.
    std::ostringstream m;
    m << "the full Newton step at iteration " << iteration_ + 1 << " raised the error from "
      << error_ << " to " << error_new << "; stopped with the previous weights (NETLAB's rule)";
    ctx_.warn("error-increased", m.str(), "output.step_control = true");
    stop_ = glm::Stop{Termination::NoProgress, m.str()};
    return Outcome::Stop;
  }
  return accept(w_new, error_new, keep_h);
}

// The Armijo backtracking line search along d from w; w_new and error_new become the step's.
IrlsRun::Outcome IrlsRun::controlled_step(const Matrix& d, double slope, Matrix& w_new,
                                          double& error_new, bool& keep_h) {
  const glm::ArmijoResult step = glm::armijo_backtracking(
      error_, slope, error_new,
      [&](double t) {
        w_new = glm::axpy(t, d, w_);
        objective_.add_flops(glm::flops::axpy(p_));
        return objective_.value(w_new);
      },
      options_.line_search);
  error_new = step.value;
  halvings_total_ += step.halvings;
  if (!step.accepted && h_kept_) return Outcome::Retry;
  if (!step.accepted) {
    // No decrease along the Newton direction even for tiny steps: the current weights are
    // the minimum to working precision, or the direction is useless.
    const double decrement = -slope;  // g^T H^-1 g, the Newton decrement squared
    const bool converged = decrement < options_.tolerance;
    std::ostringstream m;
    m << "no decrease of the error along the Newton direction after "
      << options_.line_search.max_halvings << " halvings at iteration " << iteration_
      << " (Newton decrement " << decrement << ")";
    if (!converged) {
      m << "; keeping the current weights";
      ctx_.warn("step-control", m.str(), "output.iterations or weight-penalty");
    } else {
      m << " < tolerance " << options_.tolerance << ": at the minimum to working precision";
    }
    stop_ = glm::Stop{converged ? Termination::Converged : Termination::NoProgress, m.str()};
    return Outcome::Stop;
  }
  if (step.halvings > 0) {
    evaluate(w_new, g_new_, h_new_);
    keep_h = false;
  }
  return Outcome::Next;
}

// w_new becomes the iterate, with its gradient and (unless kept) its Hessian; Stop when the
// stopping rule is met.
IrlsRun::Outcome IrlsRun::accept(Matrix& w_new, double error_new, bool keep_h) {
  ++iteration_;
  const bool done = rule_.satisfied(w_new, w_, error_new, error_);
  if (keep_h && !done && glm::max_abs(g_new_) > 0.25 * glm::max_abs(g_)) {
    // The kept Hessian no longer quarters the gradient: a fresh one at the new iterate.
    evaluate(w_new, g_new_, h_new_);
    keep_h = false;
  }
  if (keep_h) ++reused_;
  w_ = std::move(w_new);
  error_ = error_new;
  g_ = std::move(g_new_);
  if (!keep_h) h_ = std::move(h_new_);
  h_kept_ = keep_h;
  g_new_ = Matrix();
  h_new_ = Matrix();
  trace_.record(iteration_, error_);
  if (!done) return Outcome::Next;
  stop_ = glm::Stop{Termination::Converged, rule_.met_at(iteration_)};
  return Outcome::Stop;
}

// The run's figures in ctx.report, and the warnings about the run as a whole.
void IrlsRun::report() {
  if (rank_deficient_ > 0 && !objective_.penalised()) {
    // Flat directions beyond the link's own invariance: the minimum is not unique, and which
    // point of it the steps reach depends on rounding (and so on the BLAS and the CPU).
    std::ostringstream m;
    m << rank_deficient_ << " of " << solves_ << " Newton systems had rank below "
      << system_.expected_rank << " (the last: rank " << last_rank_ << " of " << p_
      << " weights): the basis outputs are collinear or saturated on the training rows, so the "
         "data do not determine the weights and the fit depends on rounding";
    ctx_.warn("rank-deficient", m.str(),
              "add [weight-penalty] plugin = \"weight-decay\" with alpha > 0, or fewer centres");
  }
  FitReport& report = ctx_.report;
  report.figures["step_halvings"] = double(halvings_total_);
  report.figures["hessians_reused"] = double(reused_);
  report.figures["rank_deficient_solves"] = double(rank_deficient_);
  report.figures["last_rank"] = double(last_rank_);
  report.figures["solver_cg"] = system_.cg ? 1.0 : 0.0;
  if (!system_.cg) return;
  double total = 0, most = 0;
  for (const double n : cg_iterations_) total += n, most = std::max(most, n);
  report.series["cg_iterations"] = cg_iterations_;  // per Newton step
  report.figures["cg_iterations"] = total;
  report.figures["cg_iterations_max"] = most;
  report.figures["cg_capped_steps"] = double(cg_capped_);
  report.figures["cg_curvature_stops"] = double(cg_curvature_);
  report.figures["hessian_products"] = double(objective_.counters().hessian_products);
  report.figures["preconditioner"] = sketch_ ? 1.0 : 0.0;
  report.figures["preconditioner_jitter"] = largest_jitter_;
  if (cg_capped_ > 0) {
    std::ostringstream m;
    m << cg_capped_ << " of " << solves_ << " Newton systems stopped at the cap of "
      << options_.cg_iterations << " CG iterations above their residual target (the steps "
      << "were taken inexact)";
    ctx_.warn("cg-iteration-cap", m.str(), "output.cg_iterations, or output.solver = \"direct\"");
  }
}

}  // namespace

bool uses_cg(const IrlsOptions& options, std::size_t weights, bool sketch) {
  return options.solver == IrlsSolver::Cg ||
         (options.solver == IrlsSolver::Auto && sketch && weights > max_direct_weights);
}

Matrix irls(glm::Objective& objective, const IrlsOptions& options, FitContext& ctx,
            const DesignMatrix* sketch) {
  IrlsRun run(objective, options, ctx, sketch);
  return run.minimise();
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
