// Registration of the `irls` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "irls.hpp"

namespace radial::plugins {
namespace {

void register_irls(Registrar& registrar) {
  registrar.add_output_layer(
      sdk::describe(
          "Logistic / softmax output weights by IRLS (Fisher scoring) with step control",
          "Nabney, Efficient training of RBF networks for classification (papers 000/003), "
          "section 2.2: eqs. 10-13; start from smoothed targets (y + 0.5)/2",
          {
              glm::link_param(),
              ParamSpec::integer("iterations", 100, "cap on IRLS iterations").at_least(1),
              glm::tolerance_param(),
              ParamSpec::choice("hessian", "exact", {"exact", "simplified"},
                                "softmax: exact Hessian (eq. 13, SVD solve) or each output "
                                "independent"),
              ParamSpec::boolean("step_control", true,
                                 "halve the Newton step until the error decreases; false = "
                                 "NETLAB's plain Newton steps, stopping at the first increase"),
          }),
      sdk::from_options<Irls>(irls_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN(radial::plugins::irls_id, "1.0.0", radial::plugins::register_irls)
