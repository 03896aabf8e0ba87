// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "matching_pursuit.hpp"

namespace matching_pursuit_plugin {

RADIAL_PLUGIN_COMPONENT(
    "matching-pursuit", "1.0.0", MatchingPursuitCentres,
    "kernel matching pursuit: each next centre the training row whose column of the "
    "pipeline's design matrix best fits the residual",
    "Vincent & Bengio (2002), Kernel matching pursuit, Machine Learning 48; template plugin of "
    "the Radial SDK (a supervised centre learner: radial/network/candidate_basis.hpp)",
    matching_pursuit_table())

}  // namespace matching_pursuit_plugin
