// Registration of the `bfgs` output layer: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "bfgs.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.slot = radial::Slot::Output;
  info.id = "bfgs";
  info.version = "1.0.0";
  info.summary = "Output weights by quasi-Newton BFGS with a strong Wolfe line search";
  info.paper =
      "NETLAB quasinew.m; Nocedal & Wright eq. 6.17, algorithms 3.5-3.6; compared with IRLS in "
      "Nabney, papers 000/003, section 4 (start from the pseudo-inverse solution)";
  info.params = {
      radial::ParamSpec::choice("link", "auto", {"auto", "logistic", "softmax", "identity"},
                                "output link; auto = logistic for 2 classes, softmax for more, "
                                "identity for regression"),
      radial::ParamSpec::integer("iterations", 1000, "cap on quasi-Newton iterations")
          .at_least(1),
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

void register_bfgs(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::Bfgs>(radial::plugins::bfgs_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("bfgs", "1.0.0", register_bfgs)
