#pragma once
// Vector operations on an optimiser's parameters seen as P numbers in storage order: the output
// trainers' weight matrices (the flattening p = i*K + k) and the refine minimisers' vectors.
// Flop counts are in radial/glm/flops.hpp.

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "radial/core/types.hpp"

namespace radial::glm {

// sum_p a_p b_p, in storage order (the same order for any thread count); Matrix or Vector.
template <class Tensor>
double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a.data()[i] * b.data()[i];
  return s;
}

// A Vector and an expression of one (x - y): evaluated, then as above.
inline double dot(const Vector& a, const Vector& b) { return dot<Vector>(a, b); }

// The largest |x|.
template <class Tensor>
double max_abs(const Tensor& m) {
  double v = 0;
  for (double x : m) v = std::max(v, std::fabs(x));
  return v;
}

// True when every entry is finite.
template <class Tensor>
bool all_finite(const Tensor& m) {
  for (double x : m)
    if (!std::isfinite(x)) return false;
  return true;
}

// x + a d: a step of length a along d from x.
inline Matrix axpy(double a, const Matrix& d, const Matrix& x) { return x + a * d; }

}  // namespace radial::glm
