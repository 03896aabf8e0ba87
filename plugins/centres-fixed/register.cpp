// Registration of the `fixed` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "fixed_centres.hpp"

namespace radial::plugins {

FixedCentresOptions fixed_centres_options(const Params& params) { return {params.string("file")}; }

namespace {

void register_fixed(Registrar& registrar) {
  registrar.add_centre_learner(
      sdk::describe(
          "centres (and optional spherical variances) read from a CSV file",
          "for bases shared with another tool, e.g. NETLAB's rbfsetbf centres and widths "
          "(Nabney, papers 000/003)",
          {
              ParamSpec::path("file", "",
                              "CSV with a header row and one centre per row: one column per "
                              "input feature (by position), optional column 'variance'")
                  .make_required(),
          }),
      sdk::from_options<FixedCentres>(fixed_centres_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("fixed", "1.0.0", radial::plugins::register_fixed)
