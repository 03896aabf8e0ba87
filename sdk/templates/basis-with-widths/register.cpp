// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "cauchy.hpp"

namespace cauchy_plugin {

RADIAL_PLUGIN_COMPONENT(
    "cauchy", "1.0.0", CauchyBasis,
    "Cauchy (inverse quadratic) basis phi = 1 / (1 + r^2) under the framework's width rules",
    "template plugin of the Radial SDK (a basis with widths)", cauchy_table())

}  // namespace cauchy_plugin
