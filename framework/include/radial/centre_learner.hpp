#pragma once
// CentreLearner: the first training stage, choosing centres (and shapes, mixing weights) with
// the output layer not yet involved. Unsupervised learners ignore the targets; class-aware
// learners (per-class mixtures, DEM, PRBF) use them.

#include "radial/centres.hpp"
#include "radial/dataset.hpp"
#include "radial/fit_context.hpp"

namespace radial {

class KernelPrior;

class CentreLearner {
 public:
  virtual ~CentreLearner();

  // train.inputs is already standardised when the pipeline asks for it. `prior` is the
  // pipeline's kernel prior, or null; learners that place a prior on kernels (prbf) use it,
  // the others ignore it. Records iterations, convergence and guards in
  // ctx.report. Throws InputError for data it cannot use (e.g. fewer rows than centres).
  virtual Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) = 0;
};

}  // namespace radial
