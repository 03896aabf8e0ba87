#include "inverse_multiquadric.hpp"

#include <cmath>

#include <radial/errors.hpp>
#include <radial/numerics/vector_math.hpp>

namespace radial::plugins {

void InverseMultiquadricBasis::prepare(Centres&, FitContext&) {}

// phi(r) = 1 / sqrt(r^2 + c^2), positive everywhere, so log phi = -0.5 log(r^2 + c^2).
void InverseMultiquadricBasis::map(Matrix& r2) const {
  double* v = r2.data();
  for (std::size_t i = 0, n = r2.size(); i < n; ++i) v[i] = 1.0 / std::sqrt(v[i] + c2_);
}

void InverseMultiquadricBasis::log_map(Matrix& r2) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  for (std::size_t i = 0; i < n; ++i) v[i] += c2_;
  log_in_place(v, n);
  for (std::size_t i = 0; i < n; ++i) v[i] *= -0.5;
}

State InverseMultiquadricBasis::state() const { return {{"c", std::sqrt(c2_)}}; }

void InverseMultiquadricBasis::load_state(const State& state) {
  const double c = state_get<double>(state, "c", "basis inverse-multiquadric");
  if (!(c > 0) || !std::isfinite(c))
    throw ModelFileError("basis inverse-multiquadric: state entry 'c' is " + std::to_string(c) +
                         "; it must be finite and > 0 (the model file is corrupted)");
  c2_ = c * c;
}

}  // namespace radial::plugins
