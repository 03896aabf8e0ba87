// The `lbfgs` refiner (lbfgs_refiner.hpp).
#include "lbfgs_refiner.hpp"

#include <chrono>

#include <radial/output_layer.hpp>
#include <radial/refine/lbfgs.hpp>
#include <radial/refine/network_objective.hpp>

namespace radial::plugins {

namespace {

refine::WidthMode resolve_widths(const std::string& choice, const Basis& basis,
                                 const Centres& centres) {
  if (choice != "auto") return refine::width_mode_from_string(choice);
  if (basis.metric() != Metric::Shape || !basis.shapes_trainable()) return refine::WidthMode::None;
  if (centres.shape == Shape::Spherical || centres.shape == Shape::Diagonal)
    return refine::WidthMode::Diagonal;
  return centres.shape == Shape::Full ? refine::WidthMode::PerCentre : refine::WidthMode::None;
}

}  // namespace

LbfgsRefinerOptions lbfgs_refiner_options(const Params& params) {
  LbfgsRefinerOptions o;
  o.iterations = static_cast<std::size_t>(params.integer("iterations"));
  o.tolerance = params.real("tolerance");
  o.memory = static_cast<std::size_t>(params.integer("memory"));
  o.centres = params.boolean("centres");
  o.widths = params.string("widths");
  return o;
}

RefinedNetwork LbfgsRefiner::refine(const RefineProblem& problem, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  refine::NetworkOptions options;
  options.centres = options_.centres;
  options.widths = resolve_widths(options_.widths, problem.basis, problem.centres);
  options.threads = ctx.threads;
  const Link& link = problem.output.link;
  refine::NetworkObjective objective(problem.data.inputs, targets_for(link, problem.data), link,
                                     problem.basis, problem.centres, problem.output.weights,
                                     problem.penalty, options);
  refine::LbfgsOptions lo;
  lo.iterations = options_.iterations;
  lo.tolerance = options_.tolerance;
  lo.memory = options_.memory;
  lo.on_iteration = [&](std::size_t iteration, double error) {
    ctx.report.curve.push_back(
        {iteration, error, objective.flops(),
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
    if (iteration > 0 && iteration % 50 == 0)
      ctx.progress("refine: iteration " + std::to_string(iteration) + ", error " +
                   std::to_string(error));
  };
  const refine::MinimiseResult r = refine::minimise_lbfgs(
      [&](const Vector& x, Vector& g) { return objective.gradient(x, g); }, objective.start(), lo);

  FitReport& report = ctx.report;
  report.iterations = r.iterations;
  report.termination = r.termination;
  report.converged = r.termination == Termination::Converged;
  report.final_error = r.value;
  report.gradient_evaluations = r.evaluations;
  report.function_evaluations = r.evaluations;
  report.flops = objective.flops();
  report.figures["start_error"] = r.curve.front();
  report.figures["gradient_max"] = r.gradient_max;
  report.figures["parameters"] = double(objective.size());
  report.figures["width_parameters"] = double(objective.width_parameters());
  if (r.termination == Termination::IterationCap)
    ctx.warn("lbfgs", "iteration-cap",
             "whole-network training stopped at its cap of " + std::to_string(r.iterations) +
                 " iterations, the error still falling",
             "refine.iterations");
  if (r.termination == Termination::NoProgress)
    ctx.warn("lbfgs", "no-progress",
             "whole-network training stopped after " + std::to_string(r.iterations) +
                 " iterations: no step along the L-BFGS or the steepest-descent direction "
                 "lowered the error (it is at its rounding floor); the network there is kept",
             "refine.tolerance (raise it to stop earlier)");
  if (r.termination == Termination::NumericalFailure)
    ctx.warn("lbfgs", "numerical-failure",
             "whole-network training met a non-finite error or gradient after " +
                 std::to_string(r.iterations) + " iterations; the last finite network is kept",
             "refine.widths = \"none\", or a weight penalty");
  return RefinedNetwork{objective.centres_at(r.x), objective.weights_at(r.x)};
}

}  // namespace radial::plugins
