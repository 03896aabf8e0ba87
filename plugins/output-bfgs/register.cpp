// Registration of the `bfgs` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "bfgs.hpp"

namespace radial::plugins {
namespace {

void register_bfgs(Registrar& registrar) {
  OptionTable<BfgsOptions> table;
  table.include(glm::gradient_trainer_table("cap on quasi-Newton iterations"));
  registrar.add_output_layer(
      sdk::describe(
          "Output weights by quasi-Newton BFGS with a strong Wolfe line search",
          "NETLAB quasinew.m; Nocedal & Wright eq. 6.17, algorithms 3.5-3.6; compared with IRLS in "
          "Nabney, papers 000/003, section 4 (start from the pseudo-inverse solution)",
          table),
      sdk::from_table<Bfgs>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::bfgs_id, "1.0.0", radial::plugins::register_bfgs)
