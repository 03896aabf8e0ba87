// Registration of the `gmm` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "gmm.hpp"

namespace radial::plugins {

static auto gmm_table() {
  OptionTable<GmmOptions> t;
  t.bind("count", &GmmOptions::count, "Gaussians (per class when mode = per-class)")
      .at_least(1)
      .plays(ParamRole::CentreCount);
  t.choice("mode", &GmmOptions::mode, {"pooled", "per-class"},
           "one mixture on all inputs, or one per class with owners and mixing weights for the "
           "bayes output");
  OptionTable<EmOptions> shape;
  shape.choice("covariance", &EmOptions::shape,
               {{"spherical", Shape::Spherical}, {"diagonal", Shape::Diagonal}, {"full", Shape::Full}},
               "covariance of each Gaussian");
  t.include(&GmmOptions::em, shape);
  t.include(&GmmOptions::em,
            em_table("", "cap on EM iterations (M-steps)",
                     "stop when the log-likelihood changes by at most tolerance times its "
                     "magnitude; 0 runs exactly `iterations`"));
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "gmm", "1.0.0", GmmLearner,
    "Gaussian mixture centres by EM (spherical, diagonal or full covariances), one pooled "
    "mixture or one mixture per class, optionally with the K-d tree of Gaussian boxes",
    "Nabney, Efficient training of RBF networks for classification (EM centres, NETLAB "
    "gmmem); Klautau, A new algorithm for training RBF networks, section III-A and fig. 1 "
    "(per-class EM), section III-C and eq. 2 (Gaussian boxes)",
    gmm_table())

}  // namespace radial::plugins
