#pragma once
// What every refiner plugin (radial/network/refiner.hpp) shares, so that a refiner is its minimiser:
// the parameters `iterations`, `tolerance`, `centres` and `widths`; the whole-network objective
// of the problem with the width mode resolved; the minimiser run from the two-stage start; and
// the report (learning curve, termination, figures, warnings naming the component).

#include <functional>
#include <string>

#include "radial/core/option_table.hpp"
#include "radial/core/params.hpp"
#include "radial/optim/lbfgs.hpp"
#include "radial/refine/network_objective.hpp"
#include "radial/network/refiner.hpp"

namespace radial::refine {

struct RefineSettings {
  bool centres = true;
  std::string widths = "auto";
  LbfgsOptions minimiser;    // iterations, tolerance (and memory for L-BFGS)
  // Early stopping: this fraction of the rows (every 1/f-th by global row index, so the same
  // rows under any sharding) is held out; the others are trained on, and the iterate (after the
  // start, which was fitted on every row) with the lowest error on the held-out rows is kept,
  // stopping `patience` iterations after it. 0: off.
  double validation = 0;
  std::size_t patience = 10;
};

// iterations, tolerance, centres, widths, validation and patience, bound to the settings, with
// the iteration cap `iterations` by default; `memory` only when `with_memory` (L-BFGS).
OptionTable<RefineSettings> refine_table(std::size_t iterations, bool with_memory = false);

// "auto" (or a mode) for this basis and these centres: diagonal for trainable spherical or
// diagonal shapes, per-centre for full ones, none for Euclidean bases and densities.
WidthMode resolve_width_mode(const std::string& choice, const Basis& basis,
                             const Centres& centres);

using Minimiser =
    std::function<MinimiseResult(const GradientFunction&, Vector, const LbfgsOptions&)>;

RefinedNetwork refine_network(const RefineProblem& problem, FitContext& ctx,
                              const RefineSettings& settings, const Minimiser& minimise);

// A refiner that is its minimiser (the shipped refiners are this class with theirs).
template <MinimiseResult (*minimise)(const GradientFunction&, Vector, const LbfgsOptions&)>
class MinimiserRefiner final : public Refiner {
 public:
  explicit MinimiserRefiner(RefineSettings settings) : settings_(std::move(settings)) {}
  RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) override {
    return refine_network(problem, ctx, settings_, minimise);
  }

 private:
  RefineSettings settings_;
};

}  // namespace radial::refine
