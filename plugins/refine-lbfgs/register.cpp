// Registration of the `lbfgs` refiner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "lbfgs_refiner.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "lbfgs", "1.0.0", LbfgsRefiner,
    "The whole network (centres, widths, output weights) by limited-memory BFGS from the "
    "two-stage fit, minimising the output layer's own error plus the weight penalty",
    "Nocedal & Wright algorithms 7.4-7.5 with the strong Wolfe search (3.5-3.6); the "
    "gradient through the basis as NETLAB rbfgrad; widths as in Frank 2014 (global, per "
    "centre, per centre and input) on a log scale",
    refine::refine_table(200, true))

}  // namespace radial::plugins
