// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "normal_equations.hpp"

namespace normal_equations_plugin {

RADIAL_PLUGIN_COMPONENT(
    "normal-equations", "1.0.0", NormalEquations,
    "linear outputs by Newton steps on the normal equations", "template plugin of the Radial SDK",
    normal_equations_table())

}  // namespace normal_equations_plugin
