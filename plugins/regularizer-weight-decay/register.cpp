// Registration of the `weight-decay` weight penalty: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "weight_decay.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "Gaussian prior on the output weights: penalty alpha/2 ||w||^2 (ridge)";
  info.paper =
      "Lecture notes on RBF networks (paper 001), 'Regularization': "
      "beta = (Z^T Z + lambda I)^{-1} Z^T y; Nabney (paper 000/003) weight decay";
  info.params = {
      radial::ParamSpec::real("alpha", 0.01, "prior precision alpha of the penalty alpha/2 ||w||^2")
          .at_least(0.0),
      radial::ParamSpec::boolean("include_bias", false,
                                 "also penalise the bias row (the last row of W)"),
  };
  return info;
}

void register_weight_decay(radial::Registrar& registrar) {
  registrar.add_weight_penalty(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<WeightDecay>(weight_decay_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("weight-decay", "1.0.0", register_weight_decay)
