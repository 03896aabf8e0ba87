// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "pseudo_huber.hpp"

namespace {

void register_pseudo_huber(radial::Registrar& registrar) {
  using namespace pseudo_huber_plugin;
  const auto table = pseudo_huber_table();
  registrar.add_weight_penalty(
      radial::sdk::describe("pseudo-Huber penalty alpha sum delta^2 (sqrt(1 + (w/delta)^2) - 1)",
                            "template plugin of the Radial SDK", table),
      radial::sdk::from_table<PseudoHuber>(table));
}

}  // namespace

RADIAL_PLUGIN("pseudo-huber", "1.0.0", register_pseudo_huber)
