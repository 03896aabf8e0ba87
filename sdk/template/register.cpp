// The plugin's one registration file: its parameter table and the export line.
#include <memory>

#include <radial/sdk/plugin.hpp>

#include "exponential.hpp"

namespace {

void register_exponential(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.summary = "exponential (Laplacian) basis phi(r) = exp(-r / width)";
  info.paper = "template plugin of the Radial SDK";
  info.params = {
      radial::ParamSpec::real("width", 1.0, "length scale of the decay, in input units")
          .above(0),
  };
  registrar.add_basis(std::move(info), [](const radial::Params& params) {
    using namespace exponential_plugin;
    return std::make_unique<ExponentialBasis>(exponential_options(params));
  });
}

}  // namespace

RADIAL_PLUGIN("exponential", "1.0.0", register_exponential)
