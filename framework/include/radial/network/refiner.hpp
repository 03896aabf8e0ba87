#pragma once
// Refiner: trains the assembled network's centres, widths and output weights together, after
// the two-stage fit (the pipeline's [refine] table). The framework hands it the fitted network
// and the training rows; the error and its gradient through the basis are the framework's
// (radial/refine/network_objective.hpp), so a refiner is an optimiser and its stopping rule.
// It returns the network it ends with, whose error must not exceed the start's.

#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial {

struct RefineProblem {
  const Dataset& data;           // this rank's training rows, as the network sees them
  const Basis& basis;            // prepared for `centres`
  const Centres& centres;        // the two-stage centres, with the shapes the basis uses
  const OutputWeights& output;   // the output layer's link and (M + 1) x K weights
  const WeightPenalty* penalty;  // the pipeline's weight penalty, or null
};

struct RefinedNetwork {
  Centres centres;  // positions and shapes (a diagonal mode makes spherical shapes diagonal)
  Matrix weights;   // (M + 1) x K, the same link
};

class Refiner {
 public:
  virtual ~Refiner();
  // ctx.report gets the iterations, the learning curve and the termination.
  virtual RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) = 0;
};

}  // namespace radial
