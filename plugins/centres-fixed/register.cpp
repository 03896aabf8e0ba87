// Registration of the `fixed` centre learner: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "fixed_centres.hpp"

namespace radial::plugins {

static auto fixed_table() {
  OptionTable<FixedCentresOptions> t;
  t.path("file", &FixedCentresOptions::file,
         "CSV with a header row and one centre per row: one column per input feature (by "
         "position), optional column 'variance'")
      .make_required();
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "fixed", "1.0.0", FixedCentres,
    "centres (and optional spherical variances) read from a CSV file",
    "for bases shared with another tool, e.g. NETLAB's rbfsetbf centres and widths "
    "(Nabney, papers 000/003)",
    fixed_table())

}  // namespace radial::plugins
