// Registration of the `rkhs` weight penalty: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "rkhs_norm.hpp"

namespace radial::plugins {
static auto rkhs_table() {
  OptionTable<RkhsOptions> t;
  t.bind("alpha", &RkhsOptions::alpha,
         "prior precision alpha of the penalty alpha/2 w^T K_MM w, K_MM(i, j) = phi_j(c_i) (the "
         "basis at the centres); FALKON's lambda is alpha / N; \"choose\": the trainer selects "
         "it by closed-form leave-one-out in the metric K_MM (with the width scale when that "
         "is chosen too)")
      .at_least(0.0)
      .or_words({"choose"})
      .plays(ParamRole::RidgeStrength);
  t.bind("include_bias", &RkhsOptions::include_bias,
         "also penalise the bias row by alpha/2 b^2 (the kernel k + 1)");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "rkhs", "1.0.0", RkhsNorm,
    "RKHS norm of the kernel part: penalty alpha/2 w^T K_MM w with K_MM the basis at the "
    "centres (kernel ridge regression when every training row is a centre)",
    "Rudi, Carratino & Rosasco 2017 (FALKON), Nystrom kernel ridge regression "
    "(K_nM^T K_nM + lambda n K_MM) beta = K_nM^T y; with all rows as centres kernel ridge "
    "regression beta = (K + lambda I)^{-1} y; needs a positive definite basis",
    rkhs_table())

}  // namespace radial::plugins
