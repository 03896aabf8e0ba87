// Registration of the `network-scg` refiner: the shared refine parameters and the factory.
#include <radial/sdk/plugin.hpp>

#include <radial/optim/minimisers.hpp>
#include <radial/refine/refine_network.hpp>

namespace radial::plugins {

using NetworkScg = refine::MinimiserRefiner<refine::minimise_scg>;

RADIAL_PLUGIN_COMPONENT(
    "network-scg", "1.0.0", NetworkScg,
    "The whole network (centres, widths, output weights) by Moller's scaled conjugate gradients "
    "from the two-stage fit, without line search; O(P) memory",
    "Moller, Neural Networks 6 (1993) 525-533; NETLAB scg.m and netopt(..., 'scg') over "
    "rbfpak's parameters",
    refine::refine_table(1000))

}  // namespace radial::plugins
