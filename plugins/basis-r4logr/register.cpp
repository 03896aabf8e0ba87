// Registration of the `r4logr` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "r4logr.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "r4logr", "1.0.0", R4LogRBasis,
    "phi(r) = r^4 log r (0 at r = 0), NETLAB's r4logr",
    "NETLAB rbf/rbffwd activation 'r4logr' (Nabney, Netlab: algorithms for pattern "
    "recognition, ch. 6)",
    sdk::polyharmonic_table<2>("r4logr"))

}  // namespace radial::plugins
