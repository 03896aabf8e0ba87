// Registration of the `r4logr` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "r4logr.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "phi(r) = r^4 log r (0 at r = 0), NETLAB's r4logr";
  info.paper =
      "NETLAB rbf/rbffwd activation 'r4logr' (Nabney, Netlab: algorithms for pattern "
      "recognition, ch. 6)";
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params&) {
    return std::make_unique<radial::plugins::R4LogRBasis>();
  });
}

}  // namespace

RADIAL_PLUGIN("r4logr", "1.0.0", register_basis)
