// Registration of the `irls` output layer: its parameter table and factory.
#include <radial/glm/training.hpp>
#include <radial/sdk/plugin.hpp>

#include "irls.hpp"

namespace radial::plugins {
static auto irls_table() {
  OptionTable<IrlsOptions> t;
  t.include(glm::trainer_table("cap on IRLS iterations"));
  t.choice("hessian", &IrlsOptions::hessian,
           {{"exact", glm::HessianKind::Exact}, {"simplified", glm::HessianKind::Simplified}},
           "softmax: exact Hessian (eq. 13, SVD solve) or each output independent");
  t.bind("step_control", &IrlsOptions::step_control,
         "halve the Newton step until the error decreases; false = NETLAB's plain Newton steps, "
         "stopping at the first increase");
  t.bind("subsample_start", &IrlsOptions::subsample_start,
         "on 65536 rows or more, start from IRLS on every 8th block of 1024 rows (penalty scaled "
         "by its share of the rows): the same minimum in fewer passes over all rows; false = "
         "the paper's start from the smoothed targets");
  t.bind("reuse_hessian", &IrlsOptions::reuse_hessian,
         "on 16384 rows or more, near the minimum keep the last Hessian while each step quarters "
         "the gradient (gradient passes only); false = a Hessian at every iterate (the paper)");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    irls_id, "1.0.0", Irls,
    "Logistic / softmax output weights by IRLS (Fisher scoring) with step control",
    "Nabney, Efficient training of RBF networks for classification (papers 000/003), "
    "section 2.2: eqs. 10-13; start from smoothed targets (y + 0.5)/2",
    irls_table())

}  // namespace radial::plugins
