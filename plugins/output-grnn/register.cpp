// Registration of the `grnn` output layer: its (empty) parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "grnn.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "grnn", "1.0.0", GrnnOutput,
    "general regression neural network: y = sum_j A_j phi_j / sum_j B_j phi_j, the targets' "
    "sums and counts by nearest centre (with centres subset all = true, the Nadaraya-Watson "
    "estimate); the spread is basis.width",
    "Specht 1991, A general regression neural network, IEEE Trans. Neural Networks 2(6) "
    "568-576: eq 3 (one Gaussian per training row), eqs 5-6 (clustered form)",
    OptionTable<GrnnOptions>(),
    [](const Params&) {
      Capabilities c;
      c.selectable = false;  // no weights fitted on the design
      return c;
    })

}  // namespace radial::plugins
