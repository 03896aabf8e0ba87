#pragma once
// The `lbfgs` refiner: the whole network (centres, widths, output weights) by limited-memory
// BFGS from the two-stage fit, on the framework's error and gradient through the basis
// (radial/refine/network_objective.hpp) and minimiser (radial/refine/lbfgs.hpp).

#include <cstddef>
#include <string>

#include <radial/params.hpp>
#include <radial/refiner.hpp>

namespace radial::plugins {

struct LbfgsRefinerOptions {
  std::size_t iterations = 200;
  double tolerance = 1e-6;
  std::size_t memory = 10;
  bool centres = true;
  // "auto": diagonal where the basis has trainable shapes that are spherical or diagonal,
  // per-centre for full covariances, none for Euclidean bases and densities.
  std::string widths = "auto";
};

LbfgsRefinerOptions lbfgs_refiner_options(const Params& params);

class LbfgsRefiner final : public Refiner {
 public:
  explicit LbfgsRefiner(LbfgsRefinerOptions options) : options_(std::move(options)) {}
  RefinedNetwork refine(const RefineProblem& problem, FitContext& ctx) override;

 private:
  LbfgsRefinerOptions options_;
};

}  // namespace radial::plugins
