// The plugin's one registration file: its description, parameter table and the export line.
#include <radial/sdk/plugin.hpp>

#include "exponential.hpp"

namespace {

void register_exponential(radial::Registrar& registrar) {
  using namespace exponential_plugin;
  const auto table = exponential_table();
  registrar.add_basis(radial::sdk::describe("exponential (Laplacian) basis phi(r) = exp(-r / width)",
                                            "template plugin of the Radial SDK", table),
                      radial::sdk::from_table<ExponentialBasis>(table));
}

}  // namespace

RADIAL_PLUGIN("exponential", "1.0.0", register_exponential)
