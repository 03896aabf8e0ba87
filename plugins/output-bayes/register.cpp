// Registration of the `bayes` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "radial/numerics/kdtree.hpp"

#include "bayes.hpp"

namespace radial::plugins {
static auto bayes_table() {
  OptionTable<BayesOptions> table;
  add_kdtree_params(
      table, &BayesOptions::use_tree, &BayesOptions::tree,
      "training-set figures evaluate only the Gaussians of each row's K-d tree leaf");
  return table;
}

RADIAL_PLUGIN_COMPONENT(
    bayes_id, "1.0.0", BayesOutput,
    "Bayes posterior of class-conditional mixtures p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) "
    "(gmm per-class, dem, prbf centres; gaussian basis with density = true)",
    "Klautau, A new algorithm for training RBF networks, eq. 1 and section II (Bayes "
    "classifier of per-class mixtures); Constantinopoulos, Titsias & Likas, eqs 2-5 (PRBF)",
    bayes_table(),
    [](const Params&) {
      Capabilities c;
      c.selectable = false;  // no weights fitted on the design
      return c;
    })

}  // namespace radial::plugins
