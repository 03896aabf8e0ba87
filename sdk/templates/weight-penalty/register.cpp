// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "pseudo_huber.hpp"

namespace pseudo_huber_plugin {

RADIAL_PLUGIN_COMPONENT(
    "pseudo-huber", "1.0.0", PseudoHuber,
    "pseudo-Huber penalty alpha sum delta^2 (sqrt(1 + (w/delta)^2) - 1)",
    "template plugin of the Radial SDK",
    pseudo_huber_table())

}  // namespace pseudo_huber_plugin
