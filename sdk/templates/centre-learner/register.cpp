// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "farthest_point.hpp"

namespace {

void register_farthest_point(radial::Registrar& registrar) {
  using namespace farthest_point_plugin;
  const auto table = farthest_point_table();
  registrar.add_centre_learner(
      radial::sdk::describe("farthest-point centres: each next centre the row farthest from those "
                            "chosen",
                            "Gonzalez (1985), Clustering to minimize the maximum intercluster "
                            "distance; template plugin of the Radial SDK",
                            table),
      radial::sdk::from_table<FarthestPointCentres>(table));
}

}  // namespace

RADIAL_PLUGIN("farthest-point", "1.0.0", register_farthest_point)
