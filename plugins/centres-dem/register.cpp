// Registration of the `dem` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "dem.hpp"

namespace radial::plugins {

static auto dem_table() {
  OptionTable<DemOptions> t;
  t.bind("count", &DemOptions::count, "Gaussians per class G")
      .at_least(1)
      .plays(ParamRole::CentreCount);
  t.bind("learning_rate", &DemOptions::learning_rate,
         "initial eta; D_jg = max(C(1)den_jg / eta, 2 D_min_jg)")
      .above(0.0);
  t.bind("eta_grow", &DemOptions::eta_grow, "eta is multiplied by this after an improvement")
      .at_least(1.0);
  t.bind("eta_shrink", &DemOptions::eta_shrink, "eta is multiplied by this after a loss")
      .above(0.0)
      .at_most(1.0);
  t.bind("iterations", &DemOptions::iterations, "cap on DEM iterations").at_least(0);
  add_tolerance(t, &DemOptions::tolerance,
                "stop when log R^d improves by at most tolerance times its magnitude");
  t.include(&DemOptions::em, em_table("em_", "cap on the per-class EM start",
                                      "relative tolerance of the EM start"));
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    dem_id, "1.0.0", DemLearner,
    "discriminative EM: per-class diagonal Gaussian mixtures refined to maximise log R^d = "
    "sum log P(y|x) by extended Baum-Welch updates, optionally with the K-d tree of "
    "Gaussian boxes",
    "Klautau, A new algorithm for training RBF networks: section III-B and fig. 2 (DEM, "
    "extended Baum-Welch updates, adaptive learning rate), fig. 1 (EM start), section "
    "III-C and eq. 2 (Gaussian boxes, K-d tree)",
    dem_table())

}  // namespace radial::plugins
