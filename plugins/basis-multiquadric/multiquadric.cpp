#include "multiquadric.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <radial/errors.hpp>
#include <radial/numerics/vector_math.hpp>

namespace radial::plugins {

MultiquadricOptions multiquadric_options(const Params& params) { return {params.real("c")}; }

void MultiquadricBasis::set_c(double c) {
  c_ = c;
  c2_ = c * c;
  // c^2 that underflows (c < ~1e-154) or overflows would lose c; hypot keeps it exact.
  scaled_ = !std::isnormal(c2_);
}

void MultiquadricBasis::prepare(Centres&, FitContext&) {}

// phi(r) = sqrt(r^2 + c^2), positive everywhere, so log phi = 0.5 log(r^2 + c^2).
void MultiquadricBasis::map(Matrix& r2) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i) v[i] = std::hypot(std::sqrt(std::max(v[i], 0.0)), c_);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sqrt(v[i] + c2_);
}

void MultiquadricBasis::log_map(Matrix& r2) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i)
      v[i] = std::log(std::hypot(std::sqrt(std::max(v[i], 0.0)), c_));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) v[i] += c2_;
  log_in_place(v, n);
  for (std::size_t i = 0; i < n; ++i) v[i] *= 0.5;
}

// c itself, not sqrt(c^2): c^2 may under- or overflow where c does not.
State MultiquadricBasis::state() const { return {{"c", c_}}; }

void MultiquadricBasis::load_state(const State& state) {
  const double c = state_get<double>(state, "c", "basis multiquadric");
  if (!(c > 0) || !(c <= 1e100)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", c);
    throw ModelFileError(std::string("basis multiquadric: state entry 'c' is ") + text +
                         "; it must be > 0 and <= 1e100, the range of the "
                         "parameter c (the model file is corrupted)");
  }
  set_c(c);
}

}  // namespace radial::plugins
