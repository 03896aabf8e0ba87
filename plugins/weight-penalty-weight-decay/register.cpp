// Registration of the `weight-decay` weight penalty: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "weight_decay.hpp"

namespace radial::plugins {
static auto weight_decay_table() {
  OptionTable<WeightDecayOptions> t;
  t.bind("alpha", &WeightDecayOptions::alpha,
         "prior precision alpha of the penalty alpha/2 ||w||^2; \"choose\": the trainer selects "
         "it by closed-form leave-one-out (Orr 1996)")
      .at_least(0.0)
      .or_words({"choose"})
      .plays(ParamRole::RidgeStrength);
  t.bind("include_bias", &WeightDecayOptions::include_bias,
         "also penalise the bias row (the last row of W)");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "weight-decay", "1.0.0", WeightDecay,
    "Gaussian prior on the output weights: penalty alpha/2 ||w||^2 (ridge)",
    "Lecture notes on RBF networks (paper 001), 'Regularization': "
    "beta = (Z^T Z + lambda I)^{-1} Z^T y; Nabney (paper 000/003) weight decay; alpha = "
    "\"choose\": Orr 1996, 'Introduction to RBF networks', section 6 (leave-one-out)",
    weight_decay_table())

}  // namespace radial::plugins
