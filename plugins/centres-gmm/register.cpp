// Registration of the `gmm` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "gmm.hpp"

namespace radial::plugins {

GmmOptions gmm_options(const Params& params) {
  GmmOptions options;
  options.count = std::size_t(params.integer("count"));
  options.mode = params.string("mode");
  const std::string& covariance = params.string("covariance");  // one of the table's choices
  const Shape shape = covariance == "spherical" ? Shape::Spherical
                      : covariance == "full"    ? Shape::Full
                                                : Shape::Diagonal;
  options.em = em_options(params, shape);
  return options;
}

namespace {

void register_gmm(Registrar& registrar) {
  ComponentInfo info = sdk::describe(
      "Gaussian mixture centres by EM (spherical, diagonal or full covariances), one pooled "
      "mixture or one mixture per class, optionally with the K-d tree of Gaussian boxes",
      "Nabney, Efficient training of RBF networks for classification (EM centres, NETLAB "
      "gmmem); Klautau, A new algorithm for training RBF networks, section III-A and fig. 1 "
      "(per-class EM), section III-C and eq. 2 (Gaussian boxes)",
      {
          ParamSpec::integer("count", 8, "Gaussians (per class when mode = per-class)").at_least(1),
          ParamSpec::choice("mode", "pooled", {"pooled", "per-class"},
                            "one mixture on all inputs, or one per class with owners and "
                            "mixing weights for the bayes output"),
          ParamSpec::choice("covariance", "diagonal", {"spherical", "diagonal", "full"},
                            "covariance of each Gaussian"),
          ParamSpec::integer("iterations", 100, "cap on EM iterations (M-steps)").at_least(0),
          ParamSpec::real("tolerance", 1e-6,
                          "stop when the log-likelihood changes by at most tolerance times "
                          "its magnitude; 0 runs exactly `iterations`")
              .at_least(0.0),
          ParamSpec::real("covariance_floor", 1e-6,
                          "variances below this (in standardised units) are raised to it")
              .above(0.0),
      });
  // The K-d tree of Gaussian boxes, declared once by the framework.
  for (auto& spec : kdtree_params("evaluate only the Gaussians of each row's K-d tree leaf"))
    info.params.push_back(std::move(spec));
  registrar.add_centre_learner(std::move(info), sdk::from_options<GmmLearner>(gmm_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::gmm_id, "1.0.0", radial::plugins::register_gmm)
