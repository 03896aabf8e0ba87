// Registration of the `subset` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "subset.hpp"

namespace radial::plugins {

static auto subset_table() {
  OptionTable<SubsetOptions> t;
  add_centre_count(t, &SubsetOptions::count, "number of centres M, drawn without replacement");
  t.bind("all", &SubsetOptions::all,
         "every training point a centre (the full RBF network); count is then ignored");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    subset_id, "1.0.0", SubsetCentres,
    "random training points as centres; all = the full RBF network",
    "Lecture notes on RBF networks (paper 001): 'Full RBF Network' (M = N, mu_m = x_m) and "
    "exact interpolation beta = Z^{-1} y",
    subset_table())

}  // namespace radial::plugins
