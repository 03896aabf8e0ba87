// Registration of the `multiquadric` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "multiquadric.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.slot = radial::Slot::Basis;
  info.id = "multiquadric";
  info.version = "1.0.0";
  info.summary = "multiquadric phi(r) = sqrt(r^2 + c^2), c > 0";
  info.paper =
      "Hardy (1971) multiquadric; Powell, 'The theory of radial basis function "
      "approximation' (1992)";
  info.params = {
      radial::ParamSpec::real("c", 1.0, "shape parameter c of sqrt(r^2 + c^2), in input units")
          .above(0.0),
  };
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::MultiquadricBasis>(params.real("c"));
  });
}

}  // namespace

RADIAL_PLUGIN("multiquadric", "1.0.0", register_basis)
