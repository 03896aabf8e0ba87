#pragma once
// The `r4logr` basis on Euclidean distances: phi(r) = r^4 log r = 0.5 (r^2)^2 log r^2, 0 at
// r = 0 (NETLAB rbffwd 'r4logr').

#include <radial/sdk/polyharmonic_basis.hpp>

namespace radial::plugins {

using R4LogRBasis = sdk::PolyharmonicLogBasis<2>;

}  // namespace radial::plugins
