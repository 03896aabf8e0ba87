// Registration of the `bayes` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "bayes.hpp"

namespace radial::plugins {

BayesOptions bayes_options(const Params& params) {
  BayesOptions options;
  options.use_tree = kdtree_enabled(params);
  options.tree = kdtree_options(params);
  return options;
}

namespace {

void register_bayes(Registrar& registrar) {
  registrar.add_output_layer(
      sdk::describe(
          "Bayes posterior of class-conditional mixtures p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) "
          "(gmm per-class, dem, prbf centres; gaussian basis with density = true)",
          "Klautau, A new algorithm for training RBF networks, eq. 1 and section II (Bayes "
          "classifier of per-class mixtures); Constantinopoulos, Titsias & Likas, eqs 2-5 (PRBF)",
          kdtree_params(
              "training-set figures evaluate only the Gaussians of each row's K-d tree leaf")),
      sdk::from_options<BayesOutput>(bayes_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::bayes_id, "1.0.0", radial::plugins::register_bayes)
