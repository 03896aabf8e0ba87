// The part every refiner shares (radial/refine/refine_network.hpp).
#include "radial/refine/refine_network.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/dataset.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/core/errors.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/text.hpp"

namespace radial::refine {

OptionTable<RefineSettings> refine_table(std::size_t iterations, bool with_memory) {
  LbfgsOptions start;
  start.iterations = iterations;
  OptionTable<LbfgsOptions> minimiser(start);
  minimiser.bind("iterations", &LbfgsOptions::iterations, "cap on iterations").at_least(1);
  minimiser.bind("tolerance", &LbfgsOptions::tolerance,
                 "stop when both the largest parameter change and the error change fall below it")
      .at_least(0);
  RefineSettings defaults;
  defaults.minimiser = start;
  OptionTable<RefineSettings> t(defaults);
  t.include(&RefineSettings::minimiser, minimiser);
  t.bind("centres", &RefineSettings::centres, "train the centres' positions");
  t.choice("widths", &RefineSettings::widths, {"auto", "none", "global", "per-centre", "diagonal"},
           "which widths to train, as log factors on the start's shapes: auto = diagonal for "
           "Gaussian activations (per-centre from full covariances), none for Euclidean bases "
           "and densities");
  t.bind("validation", &RefineSettings::validation,
         "early stopping: the fraction of training rows held out (every 1/f-th row); the "
         "iterate with the lowest held-out error is kept; 0 trains on every row to the stopping "
         "rule")
      .at_least(0)
      .at_most(0.5);
  t.bind("patience", &RefineSettings::patience,
         "early stopping: iterations without a lower held-out error before stopping")
      .at_least(1);
  if (with_memory) {
    OptionTable<LbfgsOptions> memory;
    memory.bind("memory", &LbfgsOptions::memory, "(s, y) pairs kept for the inverse Hessian")
        .at_least(1);
    t.include(&RefineSettings::minimiser, memory);
  }
  return t;
}

WidthMode resolve_width_mode(const std::string& choice, const Basis& basis,
                             const Centres& centres) {
  if (choice != "auto") return width_mode_from_string(choice);
  if (basis.metric() != Metric::Shape || !basis.shapes_trainable()) return WidthMode::None;
  if (centres.shape == Shape::Spherical || centres.shape == Shape::Diagonal)
    return WidthMode::Diagonal;
  return centres.shape == Shape::Full ? WidthMode::PerCentre : WidthMode::None;
}

namespace {

// Why the minimiser stopped, for the report's stop record (`best_iteration`: early stopping's).
std::string stop_reason(const MinimiseResult& r, const RefineSettings& settings,
                        std::size_t best_iteration) {
  const auto number = [](double v) { return text::number(v); };
  std::string how;
  if (r.stopped)
    how = "the held-out error was lowest at iteration " + std::to_string(best_iteration) +
          " and did not fall for " + std::to_string(settings.patience) + " iterations after";
  else if (r.termination == Termination::Converged)
    how = "parameter and error changes below tolerance " + number(settings.minimiser.tolerance) +
          " (or the gradient at its rounding floor, largest |g| " + number(r.gradient_max) +
          ") after " + std::to_string(r.iterations) + " iterations";
  else if (r.termination == Termination::IterationCap)
    how = "the cap of " + std::to_string(r.iterations) + " iterations";
  else if (r.termination == Termination::NoProgress)
    how = "no step lowered the error after " + std::to_string(r.iterations) + " iterations";
  else
    how = "a non-finite error or gradient after " + std::to_string(r.iterations) + " iterations";
  return how;
}

// The warnings of a stop short of convergence (a cap, no progress, a non-finite value).
void warn_on_stop(FitContext& ctx, const MinimiseResult& r, bool validation,
                  std::size_t best_iteration) {
  if (r.termination == Termination::IterationCap && (!validation || best_iteration == r.iterations))
    ctx.warn("iteration-cap",
             "whole-network training stopped at its cap of " + std::to_string(r.iterations) +
                 " iterations, the error still falling",
             "refine.iterations");
  if (r.termination == Termination::NoProgress)
    ctx.warn("no-progress",
             "whole-network training stopped after " + std::to_string(r.iterations) +
                 " iterations: no step lowered the error, with the gradient not yet at its "
                 "rounding floor; the network there is kept",
             "refine.tolerance (raise it to stop earlier)");
  if (r.termination == Termination::NumericalFailure)
    ctx.warn("numerical-failure",
             "whole-network training met a non-finite error or gradient after " +
                 std::to_string(r.iterations) + " iterations; the last finite network is kept",
             "refine.widths = \"none\", or a weight penalty");
}

}  // namespace

RefinedNetwork refine_network(const RefineProblem& problem, FitContext& ctx,
                              const RefineSettings& settings, const Minimiser& minimise) {
  const auto start = std::chrono::steady_clock::now();
  // Its gradients are over every input coordinate: no path for missing ones.
  refuse_missing(problem.data.inputs, "the refine stage");
  NetworkOptions options;
  options.centres = settings.centres;
  options.widths = resolve_width_mode(settings.widths, problem.basis, problem.centres);
  options.threads = ctx.threads;
  const Link& link = problem.output.link;
  // The whole network's error is the GLM objective's: the three canonical links only (not a
  // plugin's rule, the bayes posterior or Specht's normalised sums).
  if (link != Link::Identity && link != Link::Logistic && link != Link::Softmax)
    throw InputError("[refine] trains networks whose output link is identity, logistic or "
                     "softmax; the output layer gave link '" + link.name() +
                     "': remove [refine] or use an output layer of one of those links");
  // The rows trained on and (early stopping) the rows held out, by global row index.
  const Dataset* fit_rows = &problem.data;
  Dataset trained, held;
  const double f = settings.validation;
  if (f > 0) {
    const std::size_t first = shard_layout(problem.data.rows()).first;
    std::vector<std::size_t> in, out;
    for (std::size_t i = 0; i < problem.data.rows(); ++i) {
      const double g = double(first + i);
      (std::floor((g + 1) * f) > std::floor(g * f) ? out : in).push_back(i);
    }
    trained = select_rows(problem.data, in);
    held = select_rows(problem.data, out);
    fit_rows = &trained;
  }
  NetworkObjective objective(fit_rows->inputs, targets_for(link, *fit_rows), link,
                             problem.basis, problem.centres, problem.output.weights,
                             problem.penalty, options);
  std::optional<NetworkObjective> validation;
  if (f > 0)
    validation.emplace(held.inputs, targets_for(link, held), link, problem.basis,
                       problem.centres, problem.output.weights, nullptr, options);
  LbfgsOptions lo = settings.minimiser;
  Vector best_x;
  double best_error = std::numeric_limits<double>::infinity();
  std::size_t best_iteration = 0, since_best = 0;
  if (validation) {
    // The start was fitted on the held-out rows too, so its held-out error flatters it: it is
    // recorded, not a candidate; the kept iterate is the best of those trained without them.
    best_x = objective.start();
    ctx.report.series["validation_error"].push_back(validation->value(best_x));
    lo.keep_going = [&](std::size_t iteration, const Vector& x) {
      const double e = validation->value(x);
      ctx.report.series["validation_error"].push_back(e);
      if (e < best_error) {
        best_error = e;
        best_x = x;
        best_iteration = iteration;
        since_best = 0;
        return true;
      }
      return ++since_best < settings.patience;
    };
  }
  lo.on_iteration = [&](std::size_t iteration, double error) {
    ctx.report.curve.push_back(
        {iteration, error, objective.flops(), seconds_since(start)});
    if (iteration > 0 && iteration % 50 == 0)
      ctx.progress("refine: " + ctx.component + " iteration " + std::to_string(iteration) +
                   ", error " + std::to_string(error));
  };
  const MinimiseResult r = minimise(
      [&](const Vector& x, Vector& g) { return objective.gradient(x, g); }, objective.start(), lo);

  const Vector& chosen = validation ? best_x : r.x;
  FitReport& report = ctx.report;
  report.iterations = r.iterations;
  report.stop(r.termination, stop_reason(r, settings, best_iteration));
  report.final_error = validation ? objective.value(chosen) : r.value;
  if (validation) {
    report.figures["validation_rows"] = double(count_over_ranks(held.rows()));
    report.figures["validation_error"] = best_error;
    report.figures["best_iteration"] = double(best_iteration);
    report.figures["stopped_early"] = r.stopped ? 1.0 : 0.0;
  }
  report.gradient_evaluations = r.evaluations;
  report.function_evaluations = r.evaluations;
  report.flops = objective.flops();
  report.figures["start_error"] = r.curve.front();
  report.figures["gradient_max"] = r.gradient_max;
  report.figures["parameters"] = double(objective.size());
  report.figures["width_parameters"] = double(objective.width_parameters());
  warn_on_stop(ctx, r, validation.has_value(), best_iteration);
  return RefinedNetwork{objective.centres_at(chosen), objective.weights_at(chosen)};
}

}  // namespace radial::refine
