// Registration of the `bhattacharyya` kernel prior: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "bhattacharyya.hpp"

namespace radial::plugins {
static auto bhattacharyya_table() {
  OptionTable<BhattacharyyaOptions> t;
  t.bind("alpha", &BhattacharyyaOptions::alpha,
         "prior strength alpha of p(theta) = prod_j exp(-alpha delta_j) (eq 17), in the units of "
         "alpha_units")
      .at_least(0.0);
  t.choice("alpha_units", &BhattacharyyaOptions::units,
           {{"absolute", BhattacharyyaUnits::Absolute}, {"N/KM", BhattacharyyaUnits::NOverKM}},
           "'absolute': alpha as given; 'N/KM': alpha times N/(K M), N training rows, K classes, "
           "M kernels (the paper's unit)");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "bhattacharyya", "1.0.0", BhattacharyyaPrior,
    "Bhattacharyya kernel prior for PRBF MAP training (no output-weight penalty)",
    "Constantinopoulos, Titsias & Likas 2001, A Bayesian regularization method for the "
    "probabilistic RBF network: prior eqs 16-17, distance eq 23, M-step terms eqs 27, 29-31",
    bhattacharyya_table())

}  // namespace radial::plugins
