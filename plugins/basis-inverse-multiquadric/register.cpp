// Registration of the `inverse-multiquadric` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "inverse_multiquadric.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "inverse-multiquadric", "1.0.0", InverseMultiquadricBasis,
    "inverse multiquadric phi(r) = 1 / sqrt(r^2 + c^2), c >= 1e-100",
    "Micchelli (1986) inverse multiquadric; Powell, 'The theory of radial basis function "
    "approximation' (1992)",
    inverse_multiquadric_table())

}  // namespace radial::plugins
