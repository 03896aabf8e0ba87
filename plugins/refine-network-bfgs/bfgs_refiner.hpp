#pragma once
// The `network-bfgs` refiner: the whole network by dense BFGS (radial/refine/minimisers.hpp) on
// the framework's objective (radial/refine/refine_network.hpp).

#include <radial/refine/minimisers.hpp>
#include <radial/refine/refine_network.hpp>
#include <radial/refiner.hpp>

namespace radial::plugins {

class BfgsRefiner final : public Refiner {
 public:
  explicit BfgsRefiner(refine::RefineSettings settings) : settings_(std::move(settings)) {}
  RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) override {
    return refine::refine_network(problem, ctx, settings_, refine::minimise_bfgs);
  }

 private:
  refine::RefineSettings settings_;
};

}  // namespace radial::plugins
