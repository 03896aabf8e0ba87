// Registration of the `lbfgs` refiner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "lbfgs_refiner.hpp"

namespace radial::plugins {
namespace {

void register_lbfgs(Registrar& registrar) {
  const auto table = refine::refine_table(200, true);
  registrar.add_refiner(
      sdk::describe(
          "The whole network (centres, widths, output weights) by limited-memory BFGS from the "
          "two-stage fit, minimising the output layer's own error plus the weight penalty",
          "Nocedal & Wright algorithms 7.4-7.5 with the strong Wolfe search (3.5-3.6); the "
          "gradient through the basis as NETLAB rbfgrad; widths as in Frank 2014 (global, per "
          "centre, per centre and input) on a log scale",
          table),
      sdk::from_table<LbfgsRefiner>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("lbfgs", "1.0.0", radial::plugins::register_lbfgs)
