// Registration of the `irls` output layer: its parameter table and factory.
#include <memory>

#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "irls.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "Logistic / softmax output weights by IRLS (Fisher scoring) with step control";
  info.paper =
      "Nabney, Efficient training of RBF networks for classification (papers 000/003), "
      "section 2.2: eqs. 10-13; start from smoothed targets (y + 0.5)/2";
  info.params = {
      radial::glm::link_param(),
      radial::ParamSpec::integer("iterations", 100, "cap on IRLS iterations").at_least(1),
      radial::glm::tolerance_param(),
      radial::ParamSpec::choice("hessian", "exact", {"exact", "simplified"},
                                "softmax: exact Hessian (eq. 13, SVD solve) or each output "
                                "independent"),
      radial::ParamSpec::boolean("step_control", true,
                                 "halve the Newton step until the error decreases; false = "
                                 "NETLAB's plain Newton steps, stopping at the first increase"),
  };
  return info;
}

void register_irls(radial::Registrar& registrar) {
  registrar.add_output_layer(info(), [](const radial::Params& params) {
    return std::make_unique<radial::plugins::Irls>(radial::plugins::irls_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("irls", "1.0.0", register_irls)
