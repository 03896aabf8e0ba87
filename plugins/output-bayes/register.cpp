// Registration of the `bayes` output layer: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "bayes.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.slot = radial::Slot::Output;
  info.id = "bayes";
  info.version = "1.0.0";
  info.summary =
      "Bayes posterior of class-conditional mixtures p(C_k|x) ∝ P(C_k) sum_j pi_jk p(x|j) "
      "(gmm per-class, dem, prbf centres; gaussian basis with density = true)";
  info.paper =
      "Klautau, A new algorithm for training RBF networks, eq. 1 and section II (Bayes "
      "classifier of per-class mixtures); Constantinopoulos, Titsias & Likas, eqs 2-5 (PRBF)";
  info.params = {
      radial::ParamSpec::boolean("kdtree", false,
                                 "training-set figures evaluate only the Gaussians of each row's "
                                 "K-d tree leaf"),
      radial::ParamSpec::real("threshold", 16.0,
                              "c of the K-d tree's Gaussian boxes mu -/+ sigma sqrt(c) (eq. 2); a "
                              "huge value such as 1e300 drops no Gaussian (exact)")
          .above(0.0),
      radial::ParamSpec::integer("leaf_size", 4,
                                 "K-d tree nodes with at most this many Gaussians are leaves")
          .at_least(1),
  };
  return info;
}

void register_bayes(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    radial::plugins::BayesOptions options;
    options.use_tree = params.boolean("kdtree");
    options.tree.threshold = params.real("threshold");
    options.tree.leaf_size = std::size_t(params.integer("leaf_size"));
    return std::make_unique<radial::plugins::BayesOutput>(options);
  });
}

}  // namespace

RADIAL_PLUGIN("bayes", "1.0.0", register_bayes)
