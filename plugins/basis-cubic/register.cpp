// Registration of the `cubic` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "cubic.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "cubic", "1.0.0", CubicBasis,
    "cubic phi(r) = r^3",
    "Polyharmonic spline of order 3; Powell, 'The theory of radial basis function "
    "approximation in 1990' (1992); with polynomial = 1 SciPy's "
    "RBFInterpolator(kernel='cubic')",
    cubic_table())

}  // namespace radial::plugins
