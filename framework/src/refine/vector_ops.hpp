#pragma once
// Vector helpers the refine minimisers share (lbfgs.cpp, minimisers.cpp): the parameters are a
// Vector, the line search's weights a P x 1 Matrix.

#include <algorithm>
#include <cmath>

#include "radial/types.hpp"

namespace radial::refine::detail {

inline double dot(const Vector& a, const Vector& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a(i) * b(i);
  return s;
}

inline double largest(const Vector& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

inline bool finite(const Vector& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

inline Matrix as_column(const Vector& v) {
  Matrix m = Matrix::from_shape({v.size(), std::size_t(1)});
  std::copy(v.begin(), v.end(), m.begin());
  return m;
}

inline Vector as_vector(const Matrix& m) {
  Vector v = Vector::from_shape({m.size()});
  std::copy(m.begin(), m.end(), v.begin());
  return v;
}

}  // namespace radial::refine::detail
