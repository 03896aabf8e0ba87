// Registration of the `multiquadric` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "multiquadric.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "multiquadric", "1.0.0", MultiquadricBasis,
    "multiquadric phi(r) = sqrt(r^2 + c^2), 0 < c <= 1e100",
    "Hardy (1971) multiquadric; Powell, 'The theory of radial basis function "
    "approximation' (1992)",
    multiquadric_table())

}  // namespace radial::plugins
