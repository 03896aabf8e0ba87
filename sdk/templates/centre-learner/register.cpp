// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "farthest_point.hpp"

namespace farthest_point_plugin {

RADIAL_PLUGIN_COMPONENT(
    "farthest-point", "1.0.0", FarthestPointCentres,
    "farthest-point centres: each next centre the row farthest from those chosen",
    "Gonzalez (1985), Clustering to minimize the maximum intercluster distance; template plugin "
    "of the Radial SDK",
    farthest_point_table())

}  // namespace farthest_point_plugin
