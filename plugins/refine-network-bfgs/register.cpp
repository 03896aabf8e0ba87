// Registration of the `network-bfgs` refiner: the shared refine parameters and the factory.
#include <radial/sdk/plugin.hpp>

#include <radial/optim/minimisers.hpp>
#include <radial/refine/refine_network.hpp>

namespace radial::plugins {

using NetworkBfgs = refine::MinimiserRefiner<refine::minimise_bfgs>;

RADIAL_PLUGIN_COMPONENT(
    "network-bfgs", "1.0.0", NetworkBfgs,
    "The whole network (centres, widths, output weights) by quasi-Newton BFGS with a dense inverse Hessian from the "
    "two-stage fit; up to 8192 parameters (above, use lbfgs)",
    "Nocedal & Wright eq. 6.17, H0 by eq. 6.20, strong Wolfe search (algorithms 3.5-3.6); "
    "NETLAB netopt(..., 'quasinew') over rbfpak's parameters",
    refine::refine_table(200))

}  // namespace radial::plugins
