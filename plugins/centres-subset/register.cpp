// Registration of the `subset` centre learner: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "subset.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "random training points as centres; all = the full RBF network";
  info.paper =
      "Lecture notes on RBF networks (paper 001): 'Full RBF Network' (M = N, mu_m = x_m) and "
      "exact interpolation beta = Z^{-1} y";
  info.params = {
      radial::ParamSpec::integer("count", 10, "number of centres M, drawn without replacement")
          .at_least(1),
      radial::ParamSpec::boolean("all", false,
                                 "every training point a centre (the full RBF network); "
                                 "count is then ignored"),
  };
  return info;
}

void register_subset(radial::Registrar& registrar) {
  registrar.add_centre_learner(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<SubsetCentres>(subset_options(params));
  });
}

}  // namespace

namespace radial::plugins {

SubsetOptions subset_options(const Params& params) {
  return {static_cast<std::size_t>(params.integer("count")), params.boolean("all")};
}

}  // namespace radial::plugins

RADIAL_PLUGIN("subset", "1.0.0", register_subset)
