// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "exponential.hpp"

namespace exponential_plugin {

RADIAL_PLUGIN_COMPONENT(
    "exponential", "1.0.0", ExponentialBasis,
    "exponential (Laplacian) basis phi(r) = exp(-r / width)", "template plugin of the Radial SDK",
    exponential_table())

}  // namespace exponential_plugin
