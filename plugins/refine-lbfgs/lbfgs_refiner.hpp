#pragma once
// The `lbfgs` refiner: the whole network by limited-memory BFGS (radial/refine/lbfgs.hpp) on the
// framework's objective (radial/refine/refine_network.hpp).

#include <radial/params.hpp>
#include <radial/refine/refine_network.hpp>
#include <radial/refiner.hpp>

namespace radial::plugins {

refine::RefineSettings lbfgs_refiner_options(const Params& params);

class LbfgsRefiner final : public Refiner {
 public:
  explicit LbfgsRefiner(refine::RefineSettings settings) : settings_(std::move(settings)) {}
  RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) override {
    return refine::refine_network(problem, ctx, settings_, refine::minimise_lbfgs);
  }

 private:
  refine::RefineSettings settings_;
};

}  // namespace radial::plugins
