#include "cubic.hpp"

#include <cmath>


namespace radial::plugins {

void CubicBasis::prepare(Centres&, FitContext&) {}

// phi(r) = r^3 = r2 sqrt(r2).
void CubicBasis::map(Matrix& r2) const {
  double* v = r2.data();
  for (std::size_t i = 0, n = r2.size(); i < n; ++i) v[i] = v[i] * std::sqrt(v[i]);
}

// map() depends on nothing but the distances.
State CubicBasis::state() const { return {}; }
void CubicBasis::load_state(const State&) {}

}  // namespace radial::plugins
