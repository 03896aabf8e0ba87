// Registration of the `fixed` centre learner: its parameter table and factory.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "fixed_centres.hpp"

namespace {

radial::ComponentInfo info() {
  radial::ComponentInfo info;
  info.summary = "centres (and optional spherical variances) read from a CSV file";
  info.paper =
      "for bases shared with another tool, e.g. NETLAB's rbfsetbf centres and widths "
      "(Nabney, papers 000/003)";
  info.params = {
      radial::ParamSpec::path("file", "",
                              "CSV with a header row and one centre per row: one column per "
                              "input feature (by position), optional column 'variance'")
          .make_required(),
  };
  return info;
}

void register_fixed(radial::Registrar& registrar) {
  registrar.add_centre_learner(info(), [](const radial::Params& params) {
    using namespace radial::plugins;
    return std::make_unique<FixedCentres>(fixed_centres_options(params));
  });
}

}  // namespace

namespace radial::plugins {

FixedCentresOptions fixed_centres_options(const Params& params) {
  return {params.string("file")};
}

}  // namespace radial::plugins

RADIAL_PLUGIN("fixed", "1.0.0", register_fixed)
