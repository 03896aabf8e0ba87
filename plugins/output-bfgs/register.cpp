// Registration of the `bfgs` output layer: its parameter table and factory.
#include <memory>

#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "bfgs.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "Output weights by quasi-Newton BFGS with a strong Wolfe line search";
  info.paper =
      "NETLAB quasinew.m; Nocedal & Wright eq. 6.17, algorithms 3.5-3.6; compared with IRLS in "
      "Nabney, papers 000/003, section 4 (start from the pseudo-inverse solution)";
  info.params = {
      radial::glm::link_param(),
      radial::ParamSpec::integer("iterations", 1000, "cap on quasi-Newton iterations")
          .at_least(1),
      radial::glm::tolerance_param(),
      radial::glm::start_param(),
  };
  return info;
}

void register_bfgs(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::Bfgs>(radial::plugins::bfgs_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("bfgs", "1.0.0", register_bfgs)
