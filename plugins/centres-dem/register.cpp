// Registration of the `dem` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "dem.hpp"

namespace radial::plugins {

DemOptions dem_options(const Params& params) {
  DemOptions options;
  options.count = std::size_t(params.integer("count"));
  options.learning_rate = params.real("learning_rate");
  options.eta_grow = params.real("eta_grow");
  options.eta_shrink = params.real("eta_shrink");
  options.iterations = std::size_t(params.integer("iterations"));
  options.tolerance = params.real("tolerance");
  options.em = em_options(params, Shape::Diagonal, "em_");
  return options;
}

namespace {

void register_dem(Registrar& registrar) {
  ComponentInfo info = sdk::describe(
      "discriminative EM: per-class diagonal Gaussian mixtures refined to maximise log R^d = "
      "sum log P(y|x) by extended Baum-Welch updates, optionally with the K-d tree of Gaussian "
      "boxes",
      "Klautau, A new algorithm for training RBF networks: section III-B and fig. 2 (DEM, "
      "extended Baum-Welch updates, adaptive learning rate), fig. 1 (EM start), section III-C "
      "and eq. 2 (Gaussian boxes, K-d tree)",
      {
          ParamSpec::integer("count", 4, "Gaussians per class G").at_least(1),
          ParamSpec::real("learning_rate", 0.1,
                          "initial eta; D_jg = max(C(1)den_jg / eta, 2 D_min_jg)")
              .above(0.0),
          ParamSpec::real("eta_grow", 1.5, "eta is multiplied by this after an improvement")
              .at_least(1.0),
          ParamSpec::real("eta_shrink", 0.5, "eta is multiplied by this after a loss")
              .above(0.0)
              .at_most(1.0),
          ParamSpec::integer("iterations", 50, "cap on DEM iterations").at_least(0),
          ParamSpec::real("tolerance", 1e-6,
                          "stop when log R^d improves by at most tolerance times its "
                          "magnitude; 0 runs exactly `iterations`")
              .at_least(0.0),
          ParamSpec::integer("em_iterations", 100, "cap on the per-class EM start").at_least(0),
          ParamSpec::real("em_tolerance", 1e-6, "relative tolerance of the EM start").at_least(0.0),
          ParamSpec::real("covariance_floor", 1e-6,
                          "variances below this (standardised units) are raised to it")
              .above(0.0),
      });
  // The K-d tree of Gaussian boxes, declared once by the framework.
  for (auto& spec : kdtree_params("evaluate only the Gaussians of each row's K-d tree leaf"))
    info.params.push_back(std::move(spec));
  registrar.add_centre_learner(std::move(info), sdk::from_options<DemLearner>(dem_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::dem_id, "1.0.0", radial::plugins::register_dem)
