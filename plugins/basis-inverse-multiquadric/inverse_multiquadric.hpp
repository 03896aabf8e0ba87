#pragma once
// The `inverse-multiquadric` basis on Euclidean distances: phi(r) = 1 / sqrt(r^2 + c^2)
// (Micchelli 1986).

#include <radial/sdk/quadric_basis.hpp>

namespace radial::plugins {

using InverseMultiquadricOptions = sdk::QuadricOptions;
using InverseMultiquadricBasis = sdk::QuadricBasis<-1>;
inline OptionTable<InverseMultiquadricOptions> inverse_multiquadric_table() {
  return sdk::quadric_table<-1>();
}

}  // namespace radial::plugins
