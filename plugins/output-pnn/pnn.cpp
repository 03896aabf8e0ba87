// The `pnn` output layer (pnn.hpp).
#include "pnn.hpp"

#include <chrono>
#include <string>
#include <vector>

#include <radial/network/basis.hpp>
#include <radial/distributed/collectives.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/normalised_sums.hpp>

namespace radial::plugins {

WorkingMemory PnnOutput::working_memory(std::size_t rows, std::size_t centres,
                                        std::size_t outputs) const {
  return {8.0 * (double(rows) * (double(outputs) + 1) + (double(centres) + 1) * (outputs + 1) +
                 256.0 * double(centres)),
          "the 1-of-K targets and the class sums", ""};
}

OutputWeights PnnOutput::fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                             FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const Dataset& data = problem.data;
  if (data.task != Task::Classification)
    throw InputError("output pnn: the probabilistic neural network classifies; the target is "
                     "a regression target (use output grnn)");
  if (problem.design.rows() != problem.data.rows())
    throw ShapeError("output pnn: a design of " + std::to_string(problem.design.rows()) +
                     " rows for " + std::to_string(problem.data.rows()) + " target rows");
  if (!problem.basis.has_log_map())
    throw InputError("output pnn: the normalised rule reads log phi (so the spread may shrink "
                     "to the nearest-neighbour limit); the basis has no log map: use basis "
                     "gaussian");
  if (penalty)
    ctx.warn("penalty-unused", "pnn fits no weights; the weight penalty has no effect",
             "remove [weight-penalty]");
  if (problem.basis.width_scale_selectable())
    ctx.warn("unchosen-spread",
             "the spread was not chosen (the trainer's selection scores least-squares weights, "
             "which pnn has not): the width is the basis's rule at width_scale 1",
             "basis.width = sigma (the spread)");
  const std::size_t k = data.num_classes;
  // A_jk: the rows of class k whose nearest centre is j; B_j (their count) is replaced below.
  Matrix w = normalised_sums(data.inputs, targets_for(Link::Identity, data),
                             problem.centres.means, ctx.threads);
  const std::size_t m = w.shape(0) - 1;
  std::vector<double> n_k(k, 0.0);  // class counts over all ranks' rows
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < k; ++c) n_k[c] += w(j, c);
  double total = 0;
  for (double v : n_k) total += v;
  for (std::size_t c = 0; c < k; ++c) {
    // W_jk = h_k A_jk / n_k: the prior times the class's Parzen average.
    const double h = options_.priors == "equal" ? 1.0 / double(k) : n_k[c] / total;
    const double factor = n_k[c] > 0 ? h / n_k[c] : 0.0;
    for (std::size_t j = 0; j < m; ++j) w(j, c) *= factor;
  }
  for (std::size_t j = 0; j < m; ++j) {
    double b = 0;
    for (std::size_t c = 0; c < k; ++c) b += w(j, c);
    w(j, k) = b;
  }
  OutputWeights out;
  out.weights = std::move(w);
  out.link = Link("normalised-posterior");
  ctx.report.figures["rows"] = total;
  ctx.report.stop(Termination::Converged,
                  "closed form: each class's Parzen sum by nearest centre, priors " +
                      options_.priors + " (not iterated)");
  ctx.report.seconds = seconds_since(start);
  return out;
}

}  // namespace radial::plugins
