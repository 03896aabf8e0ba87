// Registration of the `pnn` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "pnn.hpp"

namespace radial::plugins {

static auto pnn_table() {
  OptionTable<PnnOptions> t;
  t.choice("priors", &PnnOptions::priors, {"data", "equal"},
           "class priors h_k of the Bayes decision: data (the class frequencies n_k / N, as "
           "MATLAB's newpnn) or equal (1 / K)");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "pnn", "1.0.0", PnnOutput,
    "probabilistic neural network: class posteriors h_k f_k(x) / sum h f from each class's "
    "Parzen sum of Gaussians (centres subset all = true); the spread is basis.width",
    "Specht 1990, Probabilistic neural networks, Neural Networks 3(1) 109-118: the Bayes "
    "decision h_k l_k f_k(x) (losses equal) with Parzen estimates f_k",
    pnn_table(),
    [](const Params&) {
      Capabilities c;
      c.selectable = false;  // no weights fitted on the design
      return c;
    })

}  // namespace radial::plugins
