#pragma once
// The `thin-plate` basis on Euclidean distances: phi(r) = r^2 log r = 0.5 r^2 log r^2, 0 at
// r = 0 (Nabney, papers 000/003, output eq. 14's basis).

#include <radial/sdk/polyharmonic_basis.hpp>

namespace radial::plugins {

using ThinPlateBasis = sdk::PolyharmonicLogBasis<1>;

}  // namespace radial::plugins
