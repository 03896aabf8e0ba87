// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "steepest_descent.hpp"

namespace steepest_descent_plugin {

// refine_table: the parameters every refiner shares (iterations, tolerance, centres, widths,
// validation, patience), bound to refine_network's settings; 500 iterations by default.
RADIAL_PLUGIN_COMPONENT(
    "steepest-descent", "1.0.0", SteepestDescent,
    "the whole network (centres, widths, output weights) by gradient descent with Armijo "
    "backtracking from the two-stage fit",
    "template plugin of the Radial SDK; Nocedal & Wright 3.1 and 3.4",
    radial::refine::refine_table(500))

}  // namespace steepest_descent_plugin
