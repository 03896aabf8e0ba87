// Registration of the `scg` output layer: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "scg.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.slot = radial::Slot::Output;
  info.id = "scg";
  info.version = "1.0.0";
  info.summary = "Output weights by Moller's scaled conjugate gradient (NETLAB scg)";
  info.paper =
      "Moller 1993 / Bishop 1995 section 7.9 (NETLAB scg.m); compared with IRLS in Nabney, "
      "papers 000/003, section 4 (start from the pseudo-inverse solution)";
  info.params = {
      radial::ParamSpec::choice("link", "auto", {"auto", "logistic", "softmax", "identity"},
                                "output link; auto = logistic for 2 classes, softmax for more, "
                                "identity for regression"),
      radial::ParamSpec::integer("iterations", 1000, "cap on SCG iterations").at_least(1),
      radial::ParamSpec::real("tolerance", 1e-4,
                              "stop when the largest weight change AND the error change are "
                              "both below this")
          .above(0.0),
      radial::ParamSpec::choice("start", "pseudo-inverse", {"pseudo-inverse", "zero"},
                                "initial weights: the linear-output least-squares solution "
                                "(the paper) or zeros"),
  };
  return info;
}

void register_scg(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::Scg>(radial::plugins::scg_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("scg", "1.0.0", register_scg)
