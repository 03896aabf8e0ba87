// Registration of the `prbf` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "prbf.hpp"

namespace radial::plugins {

static auto prbf_table() {
  OptionTable<PrbfOptions> t;
  t.bind("count", &PrbfOptions::count, "number of kernels M")
      .at_least(1)
      .plays(ParamRole::CentreCount);
  t.choice("covariance", &PrbfOptions::shape,
           {{"diagonal", Shape::Diagonal}, {"full", Shape::Full}}, "kernel covariances Sigma_j");
  t.bind("iterations", &PrbfOptions::iterations, "cap on EM iterations").at_least(0);
  add_tolerance(t, &PrbfOptions::tolerance,
                "stop when L(theta) changes by at most tolerance * N between iterations");
  t.choice("init", &PrbfOptions::init, {"kmeans", "gmm"},
           "initialisation: k-means clusters with uniform mixing weights, or a label-free "
           "Gaussian mixture fitted from them with mixing weights by eq 8");
  t.bind("init_iterations", &PrbfOptions::init_iterations,
         "EM iterations of the label-free mixture (init = gmm)")
      .at_least(1);
  t.bind("variance_floor", &PrbfOptions::variance_floor,
         "covariances are kept >= diag(variance_floor * var(x_d)) (variance_floor itself for a "
         "constant column)")
      .above(0.0);
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    prbf_id, "1.0.0", PrbfLearner,
    "probabilistic RBF: Gaussian kernels shared by all classes with class mixing weights, "
    "trained by EM (MAP EM with a kernel prior such as bhattacharyya)",
    "Constantinopoulos, Titsias & Likas 2001, A Bayesian regularization method for the "
    "probabilistic RBF network: model eqs 2-5, EM eqs 4 and 6-8, class priors eq 20, "
    "MAP EM eqs 27-30 with the clamp of section 3.1, L(theta) eq 22",
    prbf_table())

}  // namespace radial::plugins
