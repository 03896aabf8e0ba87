// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "cauchy.hpp"

namespace cauchy_plugin {

RADIAL_PLUGIN_COMPONENT(
    "cauchy", "1.0.0", CauchyBasis,
    "Cauchy (inverse quadratic) basis phi = 1 / (1 + r^2) under the framework's width rules",
    "template plugin of the Radial SDK (a basis with widths)", cauchy_table(),
    // What the trainer knows before it makes one (radial/plugin/loader.hpp): whether the trainer
    // may choose the width scale, for these parameters.
    [](const radial::Params& params) {
      radial::Capabilities c;
      c.width_scale_selectable = radial::width_scale_choosable(cauchy_table().read(params).width, false);
      return c;
    })

}  // namespace cauchy_plugin
