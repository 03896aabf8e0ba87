// Registration of the `bayes` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "bayes.hpp"

namespace radial::plugins {

namespace {

void register_bayes(Registrar& registrar) {
  OptionTable<BayesOptions> table;
  add_kdtree_params(
      table, &BayesOptions::use_tree, &BayesOptions::tree,
      "training-set figures evaluate only the Gaussians of each row's K-d tree leaf");
  registrar.add_output_layer(
      sdk::describe(
          "Bayes posterior of class-conditional mixtures p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) "
          "(gmm per-class, dem, prbf centres; gaussian basis with density = true)",
          "Klautau, A new algorithm for training RBF networks, eq. 1 and section II (Bayes "
          "classifier of per-class mixtures); Constantinopoulos, Titsias & Likas, eqs 2-5 (PRBF)",
          table),
      sdk::from_table<BayesOutput>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::bayes_id, "1.0.0", radial::plugins::register_bayes)
