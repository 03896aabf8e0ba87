#include "inverse_multiquadric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <radial/errors.hpp>
#include <radial/numerics/vector_math.hpp>

namespace radial::plugins {

InverseMultiquadricOptions inverse_multiquadric_options(const Params& params) { return {params.real("c")}; }

void InverseMultiquadricBasis::set_c(double c) {
  c_ = c;
  c2_ = c * c;
  // c^2 that underflows or overflows (c > ~1e154) would lose c; hypot keeps it exact.
  scaled_ = !std::isnormal(c2_);
}

void InverseMultiquadricBasis::prepare(Centres&, FitContext&) {}

// phi(r) = 1 / sqrt(r^2 + c^2), positive everywhere, so log phi = -0.5 log(r^2 + c^2).
void InverseMultiquadricBasis::map(Matrix& r2) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i)
      v[i] = 1.0 / std::hypot(std::sqrt(std::max(v[i], 0.0)), c_);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 / std::sqrt(v[i] + c2_);
}

void InverseMultiquadricBasis::log_map(Matrix& r2) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i)
      v[i] = -std::log(std::hypot(std::sqrt(std::max(v[i], 0.0)), c_));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) v[i] += c2_;
  log_in_place(v, n);
  for (std::size_t i = 0; i < n; ++i) v[i] *= -0.5;
}

// c itself, not sqrt(c^2): c^2 may under- or overflow where c does not.
State InverseMultiquadricBasis::state() const { return {{"c", c_}}; }

void InverseMultiquadricBasis::load_state(const State& state) {
  const double c = state_get<double>(state, "c", "basis inverse-multiquadric");
  if (!(c >= 1e-100) || !std::isfinite(c)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", c);
    throw ModelFileError(std::string("basis inverse-multiquadric: state entry 'c' is ") + text +
                         "; it must be finite and >= 1e-100, the range of the "
                         "parameter c (the model file is corrupted)");
  }
  set_c(c);
}

}  // namespace radial::plugins
