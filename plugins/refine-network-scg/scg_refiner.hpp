#pragma once
// The `network-scg` refiner: the whole network by scaled conjugate gradients (radial/refine/minimisers.hpp) on
// the framework's objective (radial/refine/refine_network.hpp).

#include <radial/refine/minimisers.hpp>
#include <radial/refine/refine_network.hpp>
#include <radial/refiner.hpp>

namespace radial::plugins {

class ScgRefiner final : public Refiner {
 public:
  explicit ScgRefiner(refine::RefineSettings settings) : settings_(std::move(settings)) {}
  RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) override {
    return refine::refine_network(problem, ctx, settings_, refine::minimise_scg);
  }

 private:
  refine::RefineSettings settings_;
};

}  // namespace radial::plugins
