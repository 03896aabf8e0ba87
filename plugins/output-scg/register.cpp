// Registration of the `scg` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "scg.hpp"

namespace radial::plugins {
namespace {

void register_scg(Registrar& registrar) {
  registrar.add_output_layer(
      sdk::describe(
          "Output weights by Moller's scaled conjugate gradient (NETLAB scg)",
          "Moller 1993 / Bishop 1995 section 7.9 (NETLAB scg.m); compared with IRLS in Nabney, "
          "papers 000/003, section 4 (start from the pseudo-inverse solution)",
          {
              glm::link_param(),
              ParamSpec::integer("iterations", 1000, "cap on SCG iterations").at_least(1),
              glm::tolerance_param(),
              glm::start_param(),
          }),
      sdk::from_options<Scg>(glm::trainer_options<ScgOptions>));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::scg_id, "1.0.0", radial::plugins::register_scg)
