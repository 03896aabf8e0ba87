// Registration of the `weight-decay` weight penalty: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "weight_decay.hpp"

namespace radial::plugins {
namespace {

void register_weight_decay(Registrar& registrar) {
  registrar.add_weight_penalty(
      sdk::describe(
          "Gaussian prior on the output weights: penalty alpha/2 ||w||^2 (ridge)",
          "Lecture notes on RBF networks (paper 001), 'Regularization': "
          "beta = (Z^T Z + lambda I)^{-1} Z^T y; Nabney (paper 000/003) weight decay",
          {
              ParamSpec::real("alpha", 0.01,
                              "prior precision alpha of the penalty alpha/2 ||w||^2; \"choose\": "
                              "the trainer selects it by closed-form leave-one-out (Orr 1996)")
                  .at_least(0.0)
                  .or_words({"choose"}),
              ParamSpec::boolean("include_bias", false,
                                 "also penalise the bias row (the last row of W)"),
          }),
      sdk::from_options<WeightDecay>(weight_decay_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("weight-decay", "1.0.0", radial::plugins::register_weight_decay)
