#pragma once
// The `lbfgs` refiner: the whole network by limited-memory BFGS (radial/optim/lbfgs.hpp) on the
// framework's objective (radial/refine/refine_network.hpp); its parameters add `memory`.

#include <radial/refine/refine_network.hpp>

namespace radial::plugins {

using LbfgsRefiner = refine::MinimiserRefiner<refine::minimise_lbfgs>;

}  // namespace radial::plugins
