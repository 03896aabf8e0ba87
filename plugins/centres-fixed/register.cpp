// Registration of the `fixed` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "fixed_centres.hpp"

namespace radial::plugins {

namespace {

OptionTable<FixedCentresOptions> fixed_table() {
  OptionTable<FixedCentresOptions> t;
  t.path("file", &FixedCentresOptions::file,
         "CSV with a header row and one centre per row: one column per input feature (by "
         "position), optional column 'variance'")
      .make_required();
  return t;
}

void register_fixed(Registrar& registrar) {
  const OptionTable<FixedCentresOptions> table = fixed_table();
  registrar.add_centre_learner(
      sdk::describe(
          "centres (and optional spherical variances) read from a CSV file",
          "for bases shared with another tool, e.g. NETLAB's rbfsetbf centres and widths "
          "(Nabney, papers 000/003)",
          table),
      sdk::from_table<FixedCentres>(table));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("fixed", "1.0.0", radial::plugins::register_fixed)
