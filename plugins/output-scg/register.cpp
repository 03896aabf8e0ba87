// Registration of the `scg` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "scg.hpp"

namespace radial::plugins {
namespace {

void register_scg(Registrar& registrar) {
  OptionTable<ScgOptions> table;
  table.include(glm::gradient_trainer_table("cap on SCG iterations"));
  registrar.add_output_layer(
      sdk::describe(
          "Output weights by Moller's scaled conjugate gradient (NETLAB scg)",
          "Moller 1993 / Bishop 1995 section 7.9 (NETLAB scg.m); compared with IRLS in Nabney, "
          "papers 000/003, section 4 (start from the pseudo-inverse solution)",
          table),
      sdk::from_table<Scg>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::scg_id, "1.0.0", radial::plugins::register_scg)
