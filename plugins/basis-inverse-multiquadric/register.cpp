// Registration of the `inverse-multiquadric` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "inverse_multiquadric.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "inverse multiquadric phi(r) = 1 / sqrt(r^2 + c^2), c >= 1e-100";
  info.paper =
      "Micchelli (1986) inverse multiquadric; Powell, 'The theory of radial basis function "
      "approximation' (1992)";
  info.params = {
      radial::ParamSpec::real("c", 1.0,
                              "shape parameter c of 1 / sqrt(r^2 + c^2), in input units; at "
                              "least 1e-100, since phi <= 1/c and the output fit sums phi^2 "
                              "over the rows")
          .at_least(1e-100),
  };
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<InverseMultiquadricBasis>(inverse_multiquadric_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("inverse-multiquadric", "1.0.0", register_basis)
