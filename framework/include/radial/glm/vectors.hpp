#pragma once
// Vector operations on weight matrices seen as P numbers (the flattening p = i*K + k), shared by
// the output trainers and the line searches. Flop counts are in radial/glm/flops.hpp.

#include <cstddef>

#include "radial/types.hpp"

namespace radial::glm {

// sum_p a_p b_p, in storage order (the same order for any thread count).
inline double dot(const Matrix& a, const Matrix& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a.data()[i] * b.data()[i];
  return s;
}

// x + a d: a step of length a along d from x.
inline Matrix axpy(double a, const Matrix& d, const Matrix& x) { return x + a * d; }

}  // namespace radial::glm
