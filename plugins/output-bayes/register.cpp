// Registration of the `bayes` output layer: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "bayes.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary =
      "Bayes posterior of class-conditional mixtures p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) "
      "(gmm per-class, dem, prbf centres; gaussian basis with density = true)";
  info.paper =
      "Klautau, A new algorithm for training RBF networks, eq. 1 and section II (Bayes "
      "classifier of per-class mixtures); Constantinopoulos, Titsias & Likas, eqs 2-5 (PRBF)";
  // The K-d tree of Gaussian boxes, declared once by the framework.
  info.params = radial::kdtree_params(
      "training-set figures evaluate only the Gaussians of each row's K-d tree leaf");
  return info;
}

void register_bayes(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<BayesOutput>(bayes_options(params));
  });
}

}  // namespace

namespace radial::plugins {

BayesOptions bayes_options(const Params& params) {
  BayesOptions options;
  options.use_tree = kdtree_enabled(params);
  options.tree = kdtree_options(params);
  return options;
}

}  // namespace radial::plugins

RADIAL_PLUGIN("bayes", "1.0.0", register_bayes)
