// Registration of the `thin-plate` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "thin_plate.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "thin-plate spline phi(r) = r^2 log r (0 at r = 0)";
  info.paper =
      "Nabney (papers 000/003), section 4: the RBF networks of every experiment use thin "
      "plate splines (output eq. 14); NETLAB rbffwd 'tps'";
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params&) {
    return std::make_unique<radial::plugins::ThinPlateBasis>();
  });
}

}  // namespace

RADIAL_PLUGIN("thin-plate", "1.0.0", register_basis)
