// Registration of the `prbf` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "prbf.hpp"

namespace radial::plugins {

PrbfOptions prbf_options(const Params& params) {
  PrbfOptions options;
  options.count = std::size_t(params.integer("count"));
  options.shape = params.string("covariance") == "full" ? Shape::Full : Shape::Diagonal;
  options.iterations = std::size_t(params.integer("iterations"));
  options.tolerance = params.real("tolerance");
  options.init = params.string("init");
  options.init_iterations = std::size_t(params.integer("init_iterations"));
  options.variance_floor = params.real("variance_floor");
  return options;
}

namespace {

void register_prbf(Registrar& registrar) {
  registrar.add_centre_learner(
      sdk::describe(
          "probabilistic RBF: Gaussian kernels shared by all classes with class mixing weights, "
          "trained by EM (MAP EM with a kernel prior such as bhattacharyya)",
          "Constantinopoulos, Titsias & Likas 2001, A Bayesian regularization method for the "
          "probabilistic RBF network: model eqs 2-5, EM eqs 4 and 6-8, class priors eq 20, "
          "MAP EM eqs 27-30 with the clamp of section 3.1, L(theta) eq 22",
          {
              ParamSpec::integer("count", 8, "number of kernels M").at_least(1),
              ParamSpec::choice("covariance", "diagonal", {"diagonal", "full"},
                                "kernel covariances Sigma_j"),
              ParamSpec::integer("iterations", 100, "cap on EM iterations").at_least(0),
              ParamSpec::real("tolerance", 1e-6,
                              "stop when L(theta) changes by at most tolerance * N between "
                              "iterations; 0 runs exactly `iterations`")
                  .at_least(0.0),
              ParamSpec::choice("init", "kmeans", {"kmeans", "gmm"},
                                "initialisation: k-means clusters with uniform mixing weights, "
                                "or a label-free Gaussian mixture fitted from them with mixing "
                                "weights by eq 8"),
              ParamSpec::integer("init_iterations", 20,
                                 "EM iterations of the label-free mixture (init = gmm)")
                  .at_least(1),
              ParamSpec::real("variance_floor", 1e-6,
                              "covariances are kept >= diag(variance_floor * var(x_d)) "
                              "(variance_floor itself for a constant column)")
                  .above(0.0),
          }),
      sdk::from_options<PrbfLearner>(prbf_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::prbf_id, "1.0.0", radial::plugins::register_prbf)
