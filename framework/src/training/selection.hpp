#pragma once
// Selection of the values a pipeline leaves to "choose" (internal to the trainer): the basis
// width scale, the weight penalty's alpha and the number of centres, by the closed-form
// leave-one-out of ridge least squares on the design (radial/numerics/ridge_loo.hpp). One
// eigendecomposition per (count, width) candidate; every penalty on the path is free.
//
// Least-squares outputs minimise exactly that criterion. For outputs of another error
// (cross-entropy: irls, scg, bfgs) it is the least-squares proxy on the 1-of-K targets, with the
// same alpha: the width and penalty that make the linear fit predict held-out rows best.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "radial/centres.hpp"
#include "radial/trainer.hpp"

namespace radial::training {

// What the trainer's centre stage gives for a pipeline (its own seed and report).
struct CentreFit {
  Centres centres;
  FitReport report;
};
using FitCentres = std::function<CentreFit(const Pipeline&)>;

struct Selected {
  Pipeline pipeline;     // the input with every chosen value written in
  CentreFit centres;     // the centres of the chosen count, fitted once
  SelectionReport report;
};

// Empty when there is nothing to choose: no "choose" value, or an output layer that does not
// fit weights on the design (OutputLayer::selectable). A pipeline that chooses its width but
// names no weight penalty gets weight-decay with a chosen alpha (report.penalty_added): the
// defaults never leave an unpenalised, possibly ill-posed fit.
std::optional<Selected> select_by_loo(const Pipeline& p, const Registry& registry,
                                      const Dataset& train, std::uint64_t basis_seed, int threads,
                                      const FitCentres& fit_centres,
                                      const std::function<void(const std::string&)>& log);

// The width scales tried: 0.25, 0.5, ..., 32.
std::vector<double> width_scale_grid();

}  // namespace radial::training
