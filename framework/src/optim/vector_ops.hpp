#pragma once
// Vector helpers the refine minimisers share (lbfgs.cpp, minimisers.cpp): the parameters are a
// Vector, the line search's weights a P x 1 Matrix.

#include <algorithm>
#include <cmath>

#include "radial/glm/vectors.hpp"
#include "radial/core/types.hpp"

namespace radial::refine::detail {

// dot, max_abs and all_finite: radial/glm/vectors.hpp, the output trainers' own.
using glm::all_finite;
using glm::dot;
using glm::max_abs;

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
