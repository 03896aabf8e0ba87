// Registration of the `thin-plate` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "thin_plate.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "thin-plate", "1.0.0", ThinPlateBasis,
    "thin-plate spline phi(r) = r^2 log r (0 at r = 0)",
    "Nabney (papers 000/003), section 4: the RBF networks of every experiment use thin "
    "plate splines (output eq. 14); NETLAB rbffwd 'tps'; with polynomial = 1 SciPy's "
    "RBFInterpolator(kernel='thin_plate_spline')",
    sdk::polyharmonic_table<1>("thin-plate"))

}  // namespace radial::plugins
