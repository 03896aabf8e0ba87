// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "normal_equations.hpp"

namespace normal_equations_plugin {

RADIAL_PLUGIN_COMPONENT(
    "normal-equations", "1.0.0", NormalEquations,
    "linear outputs by Newton steps on the normal equations", "template plugin of the Radial SDK",
    normal_equations_table(),
    // What the trainer knows before it makes one (radial/plugin/loader.hpp): the layer minimises
    // the penalised sum of squares, so the closed-form leave-one-out is its own error.
    [](const radial::Params&) {
      radial::Capabilities c;
      c.least_squares = true;
      return c;
    })

}  // namespace normal_equations_plugin
