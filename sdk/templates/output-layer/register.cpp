// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "normal_equations.hpp"

namespace {

void register_normal_equations(radial::Registrar& registrar) {
  using namespace normal_equations_plugin;
  const auto table = normal_equations_table();
  registrar.add_output_layer(
      radial::sdk::describe("linear outputs by Newton steps on the normal equations",
                            "template plugin of the Radial SDK", table),
      radial::sdk::from_table<NormalEquations>(table));
}

}  // namespace

RADIAL_PLUGIN("normal-equations", "1.0.0", register_normal_equations)
