#pragma once
// The `lbfgs` refiner: the whole network by limited-memory BFGS (radial/refine/lbfgs.hpp) on the
// framework's objective (radial/refine/refine_network.hpp); its options add `memory`.

#include <radial/params.hpp>
#include <radial/refine/refine_network.hpp>

namespace radial::plugins {

refine::RefineSettings lbfgs_refiner_options(const Params& params);
using LbfgsRefiner = refine::MinimiserRefiner<refine::minimise_lbfgs>;

}  // namespace radial::plugins
