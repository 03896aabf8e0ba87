#pragma once
// The `multiquadric` basis on Euclidean distances: phi(r) = sqrt(r^2 + c^2) (Hardy 1971).

#include <radial/sdk/quadric_basis.hpp>

namespace radial::plugins {

using MultiquadricOptions = sdk::QuadricOptions;
using MultiquadricBasis = sdk::QuadricBasis<1>;
inline OptionTable<MultiquadricOptions> multiquadric_table() { return sdk::quadric_table<1>(); }

}  // namespace radial::plugins
