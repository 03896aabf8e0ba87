#include "cubic.hpp"

#include <cmath>

namespace radial::plugins {

// phi(r) = r^3 = r2 sqrt(r2).
void CubicBasis::map(Matrix& r2) const {
  double* v = r2.data();
  for (std::size_t i = 0, n = r2.size(); i < n; ++i) v[i] = v[i] * std::sqrt(v[i]);
}

void CubicBasis::map_derivative(const Matrix& r2, const Matrix&, Matrix& dphi) const {
  // d (r^2)^(3/2) / d r^2 = 1.5 r
  if (dphi.shape() != r2.shape()) dphi.resize({r2.shape(0), r2.shape(1)});
  for (std::size_t i = 0, n = r2.size(); i < n; ++i) dphi.data()[i] = 1.5 * std::sqrt(r2.data()[i]);
}

}  // namespace radial::plugins
