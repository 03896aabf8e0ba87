// Registration of the `multiquadric` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "multiquadric.hpp"

namespace radial::plugins {
namespace {

void register_basis(Registrar& registrar) {
  const auto table = multiquadric_table();
  registrar.add_basis(
      sdk::describe("multiquadric phi(r) = sqrt(r^2 + c^2), 0 < c <= 1e100",
                    "Hardy (1971) multiquadric; Powell, 'The theory of radial basis function "
                    "approximation' (1992)",
                    table),
      sdk::from_table<MultiquadricBasis>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("multiquadric", "1.0.0", radial::plugins::register_basis)
