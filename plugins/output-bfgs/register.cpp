// Registration of the `bfgs` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "bfgs.hpp"

namespace radial::plugins {
namespace {

void register_bfgs(Registrar& registrar) {
  registrar.add_output_layer(
      sdk::describe(
          "Output weights by quasi-Newton BFGS with a strong Wolfe line search",
          "NETLAB quasinew.m; Nocedal & Wright eq. 6.17, algorithms 3.5-3.6; compared with IRLS in "
          "Nabney, papers 000/003, section 4 (start from the pseudo-inverse solution)",
          {
              glm::link_param(),
              ParamSpec::integer("iterations", 1000, "cap on quasi-Newton iterations").at_least(1),
              glm::tolerance_param(),
              glm::start_param(),
          }),
      sdk::from_options<Bfgs>(glm::trainer_options<BfgsOptions>));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::bfgs_id, "1.0.0", radial::plugins::register_bfgs)
