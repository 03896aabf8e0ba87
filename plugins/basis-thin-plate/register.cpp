// Registration of the `thin-plate` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "thin_plate.hpp"

namespace radial::plugins {
namespace {

void register_basis(Registrar& registrar) {
  registrar.add_basis(
      sdk::describe(
          "thin-plate spline phi(r) = r^2 log r (0 at r = 0)",
          "Nabney (papers 000/003), section 4: the RBF networks of every experiment use thin "
          "plate splines (output eq. 14); NETLAB rbffwd 'tps'"),
      sdk::without_params<ThinPlateBasis>());
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("thin-plate", "1.0.0", radial::plugins::register_basis)
