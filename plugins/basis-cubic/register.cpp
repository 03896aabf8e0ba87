// Registration of the `cubic` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "cubic.hpp"

namespace radial::plugins {
namespace {

void register_basis(Registrar& registrar) {
  registrar.add_basis(
      sdk::describe("cubic phi(r) = r^3",
                    "Polyharmonic spline of order 3; Powell, 'The theory of radial basis function "
                    "approximation in 1990' (1992)"),
      sdk::without_params<CubicBasis>());
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("cubic", "1.0.0", radial::plugins::register_basis)
