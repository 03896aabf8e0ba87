// Registration of the `scg` output layer: its parameter table and factory.
#include <memory>

#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "scg.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "Output weights by Moller's scaled conjugate gradient (NETLAB scg)";
  info.paper =
      "Moller 1993 / Bishop 1995 section 7.9 (NETLAB scg.m); compared with IRLS in Nabney, "
      "papers 000/003, section 4 (start from the pseudo-inverse solution)";
  info.params = {
      radial::glm::link_param(),
      radial::ParamSpec::integer("iterations", 1000, "cap on SCG iterations").at_least(1),
      radial::glm::tolerance_param(),
      radial::glm::start_param(),
  };
  return info;
}

void register_scg(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::Scg>(radial::plugins::scg_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("scg", "1.0.0", register_scg)
