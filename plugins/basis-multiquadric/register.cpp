// Registration of the `multiquadric` basis: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "multiquadric.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "multiquadric phi(r) = sqrt(r^2 + c^2), 0 < c <= 1e100";
  info.paper =
      "Hardy (1971) multiquadric; Powell, 'The theory of radial basis function "
      "approximation' (1992)";
  info.params = {
      radial::ParamSpec::real("c", 1.0,
                              "shape parameter c of sqrt(r^2 + c^2), in input units; at most "
                              "1e100, since phi >= c and the output fit sums phi^2 over the rows")
          .above(0.0)
          .at_most(1e100),
  };
  return info;
}

void register_basis(radial::Registrar& registrar) {
  registrar.add_basis(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<MultiquadricBasis>(multiquadric_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("multiquadric", "1.0.0", register_basis)
