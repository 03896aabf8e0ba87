#include "exponential.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <radial/errors.hpp>
#include <radial/state.hpp>

namespace exponential_plugin {

ExponentialOptions exponential_options(const radial::Params& params) {
  return {params.real("width")};
}

void ExponentialBasis::prepare(radial::Centres&, radial::FitContext&) {
  // The width is a parameter; nothing depends on the centres.
}

void ExponentialBasis::map(radial::Matrix& r2) const {
  const double inverse_width = 1.0 / width_;
  // r2 holds squared distances; clamp rounding below zero before the square root.
  for (double& value : r2) value = std::exp(-std::sqrt(std::max(value, 0.0)) * inverse_width);
}

void ExponentialBasis::log_map(radial::Matrix& r2) const {
  const double inverse_width = 1.0 / width_;
  for (double& value : r2) value = -std::sqrt(std::max(value, 0.0)) * inverse_width;
}

radial::State ExponentialBasis::state() const { return {{"width", width_}}; }

void ExponentialBasis::load_state(const radial::State& state) {
  const double width = radial::state_get<double>(state, "width", "basis exponential");
  if (!(width > 0) || !std::isfinite(width)) {
    throw radial::ModelFileError("basis exponential: stored width " + std::to_string(width) +
                                 " is not a positive number; the model file is damaged");
  }
  width_ = width;
}

}  // namespace exponential_plugin
