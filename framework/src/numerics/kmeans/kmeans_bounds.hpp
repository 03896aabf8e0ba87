#pragma once
// Hamerly's bound test of the k-means assignment over a block of rows, and the outward rounding
// of bounds to float. Private to kmeans.cpp (see its BoundedAssignment).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace radial::detail {

// Bounds are kept in float, rounded outwards, so they stay valid bounds (12 bytes per row with
// the label instead of 24). The neighbouring float is taken by its bit pattern (ordered like
// the values for floats of one sign), not by std::nextafter, a library call per row.
inline float float_step(float f, bool away_from_zero) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  bits = away_from_zero ? bits + 1 : bits - 1;
  std::memcpy(&f, &bits, sizeof bits);
  return f;
}
inline float round_up(double v) {
  float f = float(v);
  if (double(f) < v)
    f = f == 0.0f ? std::numeric_limits<float>::denorm_min() : float_step(f, f > 0.0f);
  return f;
}
inline float round_down(double v) {
  if (v <= 0) return 0.0f;
  float f = float(v);  // > 0, or 0 when v is below half the least denormal
  if (double(f) > v) f = float_step(f, false);
  return f;
}

// What the centres' last move does to the bounds: per centre its drift (an upper bound on how
// far it moved) and half the distance to its nearest other centre; the largest drift, its
// centre, and the second largest.
struct BoundShift {
  const double* drift = nullptr;
  const double* half_gap = nullptr;
  std::uint32_t drift_argmax = 0;
  double drift_max = 0, drift_second = 0;
};

// Hamerly's test for `count` rows (label, upper and lower point at the block's first row): the
// upper bound u grows by its centre's drift, the lower bound l shrinks by the largest drift of
// the other centres, and both are stored rounded outwards (u >= 0). A row keeps its centre when
// u <= max(half_gap[a], l); the others are written to `failing` (offsets in the block) with that
// bound in `bounds`, in row order. Returns their number. The same values on every path (AVX2
// when the CPU has it, else scalar).
std::size_t move_bounds(const std::uint32_t* label, float* upper, float* lower,
                        std::size_t count, const BoundShift& shift, std::uint32_t* failing,
                        double* bounds);

}  // namespace radial::detail
