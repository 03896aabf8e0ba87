// The `lbfgs` refiner's options (lbfgs_refiner.hpp).
#include "lbfgs_refiner.hpp"

namespace radial::plugins {

refine::RefineSettings lbfgs_refiner_options(const Params& params) {
  refine::RefineSettings s = refine::refine_settings(params, "lbfgs");
  s.minimiser.memory = static_cast<std::size_t>(params.integer("memory"));
  return s;
}

}  // namespace radial::plugins
