// Registration of the `cubic` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "cubic.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "cubic phi(r) = r^3";
  info.paper =
      "Polyharmonic spline of order 3; Powell, 'The theory of radial basis function "
      "approximation in 1990' (1992)";
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params&) {
    return std::make_unique<radial::plugins::CubicBasis>();
  });
}

}  // namespace

RADIAL_PLUGIN("cubic", "1.0.0", register_basis)
