#include "cubic.hpp"

#include <cmath>

namespace radial::plugins {

// phi(r) = r^3 = r2 sqrt(r2).
void CubicBasis::map(Matrix& r2) const {
  double* v = r2.data();
  for (std::size_t i = 0, n = r2.size(); i < n; ++i) v[i] = v[i] * std::sqrt(v[i]);
}

}  // namespace radial::plugins
