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
         "the gradient (gradient passes only); false = a Hessian at every iterate (the paper); "
         "direct solver only");
  t.choice("solver", &IrlsOptions::solver,
           {{"auto", IrlsSolver::Auto}, {"direct", IrlsSolver::Direct}, {"cg", IrlsSolver::Cg}},
           "how each Newton system H d = -g is solved: direct (the Hessian formed and "
           "decomposed, the paper); cg (Newton-CG: preconditioned conjugate gradient with "
           "Hessian-vector products in passes over the design, the K (M+1) square Hessian never "
           "formed; preconditioner per output from the design at the centres weighted by the "
           "IRLS weights there); auto: cg above K (M+1) = 2048 weights, else direct");
  t.bind("cg_iterations", &IrlsOptions::cg_iterations,
         "cg: the most CG iterations (Hessian-vector products) per Newton step")
      .at_least(1);
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    irls_id, "1.0.0", Irls,
    "Logistic / softmax output weights by IRLS (Fisher scoring) with step control",
    "Nabney, Efficient training of RBF networks for classification (papers 000/003), "
    "section 2.2: eqs. 10-13; start from smoothed targets (y + 0.5)/2",
    irls_table())

}  // namespace radial::plugins
