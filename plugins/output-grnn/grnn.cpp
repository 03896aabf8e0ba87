// The `grnn` output layer (grnn.hpp).
#include "grnn.hpp"

#include <chrono>
#include <string>

#include <radial/network/basis.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/normalised_sums.hpp>

namespace radial::plugins {

WorkingMemory GrnnOutput::working_memory(std::size_t rows, std::size_t centres,
                                         std::size_t outputs) const {
  // The targets, the nearest centres and W; distances in blocks of 256 rows.
  return {8.0 * (double(rows) * (double(outputs) + 1) + (double(centres) + 1) * (outputs + 1) +
                 256.0 * double(centres)),
          "the targets and the sums A, B", ""};
}

OutputWeights GrnnOutput::fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                              FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  if (problem.design.rows() != problem.data.rows())
    throw ShapeError("output grnn: a design of " + std::to_string(problem.design.rows()) +
                     " rows for " + std::to_string(problem.data.rows()) + " target rows");
  if (!problem.basis.has_log_map())
    throw InputError("output grnn: the normalised rule reads log phi (so the spread may shrink "
                     "to the nearest-neighbour limit); the basis has no log map: use basis "
                     "gaussian");
  if (penalty)
    ctx.warn("penalty-unused", "grnn fits no weights; the weight penalty has no effect",
             "remove [weight-penalty]");
  if (problem.basis.width_scale_selectable())
    ctx.warn("unchosen-spread",
             "the spread was not chosen (the trainer's selection scores least-squares weights, "
             "which grnn has not): the width is the basis's rule at width_scale 1",
             "basis.width = sigma (the spread)");
  const bool classes = problem.data.task == Task::Classification;
  OutputWeights out;
  out.weights = normalised_sums(problem.data.inputs, targets_for(Link::Identity, problem.data),
                                problem.centres.means, ctx.threads);
  out.link = Link(classes ? "normalised-posterior" : "normalised");
  ctx.report.figures["rows"] = double(problem.data.rows());
  ctx.report.stop(Termination::Converged,
                  "closed form: Specht's sums of the targets by nearest centre (not iterated)");
  ctx.report.seconds = seconds_since(start);
  return out;
}

}  // namespace radial::plugins
