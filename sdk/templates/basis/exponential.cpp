#include "exponential.hpp"

#include <algorithm>
#include <cmath>

#include <radial/core/state.hpp>

namespace exponential_plugin {

radial::OptionTable<ExponentialOptions> exponential_table() {
  radial::OptionTable<ExponentialOptions> t;
  t.bind("width", &ExponentialOptions::width, "length scale of the decay, in input units").above(0);
  return t;
}

void ExponentialBasis::map(radial::Matrix& r2) const {
  const double inverse_width = 1.0 / options_.width;
  // r2 holds squared distances; clamp rounding below zero before the square root.
  for (double& value : r2) value = std::exp(-std::sqrt(std::max(value, 0.0)) * inverse_width);
}

void ExponentialBasis::log_map(radial::Matrix& r2) const {
  const double inverse_width = 1.0 / options_.width;
  for (double& value : r2) value = -std::sqrt(std::max(value, 0.0)) * inverse_width;
}

radial::State ExponentialBasis::state() const { return {{"width", options_.width}}; }

// A damaged model file gets the table's own check (ModelFileError naming the entry).
void ExponentialBasis::load_state(const radial::State& state) {
  options_.width = radial::state_param(state, exponential_table().params().front(), "basis exponential");
}

}  // namespace exponential_plugin
