// The EM parameters of the mixture learners (radial/numerics/mixture/mixture_em.hpp).
#include "radial/numerics/mixture/mixture_em.hpp"

namespace radial {

OptionTable<EmOptions> em_table(const std::string& prefix, std::string iterations_doc,
                                std::string tolerance_doc) {
  OptionTable<EmOptions> t;
  t.bind(prefix + "iterations", &EmOptions::iterations, std::move(iterations_doc)).at_least(0);
  t.bind(prefix + "tolerance", &EmOptions::tolerance, std::move(tolerance_doc)).at_least(0.0);
  t.bind("covariance_floor", &EmOptions::covariance_floor,
         "variances below this (in standardised units) are raised to it")
      .above(0.0);
  add_kdtree_params(t, &EmOptions::use_tree, &EmOptions::tree);
  return t;
}

}  // namespace radial
