// Registration of the `subset` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "subset.hpp"

namespace radial::plugins {

SubsetOptions subset_options(const Params& params) {
  return {centre_count(params), params.boolean("all")};  // count 0: auto, in fit()
}

namespace {

void register_subset(Registrar& registrar) {
  registrar.add_centre_learner(
      sdk::describe(
          "random training points as centres; all = the full RBF network",
          "Lecture notes on RBF networks (paper 001): 'Full RBF Network' (M = N, mu_m = x_m) and "
          "exact interpolation beta = Z^{-1} y",
          {
              centre_count_param("number of centres M, drawn without replacement"),
              ParamSpec::boolean("all", false,
                                 "every training point a centre (the full RBF network); "
                                 "count is then ignored"),
          }),
      sdk::from_options<SubsetCentres>(subset_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("subset", "1.0.0", radial::plugins::register_subset)
