// Hamerly's bound test over a block of rows (see kmeans_bounds.hpp): a scalar loop, and the same
// arithmetic four rows at a time on AVX2 (the row loop was a third of a k-means iteration at
// small d, where most rows keep their centre).
#include "kmeans_bounds.hpp"

#include <algorithm>

#include "radial/exec/cpu.hpp"

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12's gather intrinsics start from a deliberately undefined vector (_mm256_undefined_pd),
// which -Wmaybe-uninitialized reports from inside the system header.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC only: clang has no such group (-Wunknown-warning-option)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define RADIAL_BOUNDS_AVX2 1
#endif

namespace radial::detail {

namespace {

// Rows [from, count) one at a time.
std::size_t move_bounds_scalar(const std::uint32_t* label, float* upper, float* lower,
                               std::size_t from, std::size_t count, const BoundShift& shift,
                               std::uint32_t* failing, double* bounds, std::size_t found) {
  for (std::size_t i = from; i < count; ++i) {
    const std::uint32_t a = label[i];
    const double u = double(upper[i]) + shift.drift[a];
    const double l =
        double(lower[i]) - (a == shift.drift_argmax ? shift.drift_second : shift.drift_max);
    const double bound = std::max(shift.half_gap[a], l);
    lower[i] = round_down(l);
    upper[i] = round_up(u);
    if (u <= bound) continue;
    failing[found] = std::uint32_t(i);
    bounds[found] = bound;
    ++found;
  }
  return found;
}

#ifdef RADIAL_BOUNDS_AVX2

// The 64-bit lane masks of a comparison as four 32-bit lanes (-1 or 0).
__attribute__((target("avx2"))) inline __m128i narrow_mask(__m256d mask) {
  const __m256i packed = _mm256_permutevar8x32_epi32(_mm256_castpd_si256(mask),
                                                     _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  return _mm256_castsi256_si128(packed);
}

// round_up of four values >= 0 (or +inf): to nearest, then one float up where that fell below
// (+1 on the bits of a float >= 0, which from 0 gives the least denormal, as round_up).
__attribute__((target("avx2"))) inline __m128 round_up4(__m256d v) {
  const __m128 f = _mm256_cvtpd_ps(v);
  const __m128i below = narrow_mask(_mm256_cmp_pd(_mm256_cvtps_pd(f), v, _CMP_LT_OQ));
  return _mm_castsi128_ps(_mm_sub_epi32(_mm_castps_si128(f), below));
}

// round_down of four values: 0 where v <= 0, else to nearest and one float down where that
// rose above.
__attribute__((target("avx2"))) inline __m128 round_down4(__m256d v) {
  const __m128 f = _mm256_cvtpd_ps(v);
  const __m128i above = narrow_mask(_mm256_cmp_pd(_mm256_cvtps_pd(f), v, _CMP_GT_OQ));
  const __m128i positive = narrow_mask(_mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_GT_OQ));
  return _mm_castsi128_ps(_mm_and_si128(_mm_add_epi32(_mm_castps_si128(f), above), positive));
}

__attribute__((target("avx2"))) std::size_t move_bounds_avx2(
    const std::uint32_t* label, float* upper, float* lower, std::size_t count,
    const BoundShift& shift, std::uint32_t* failing, double* bounds) {
  const __m256d drift_max = _mm256_set1_pd(shift.drift_max);
  const __m256d drift_second = _mm256_set1_pd(shift.drift_second);
  const __m128i argmax = _mm_set1_epi32(int(shift.drift_argmax));
  std::size_t found = 0, i = 0;
  alignas(32) double lane_bound[4];
  for (; i + 4 <= count; i += 4) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(label + i));
    const __m256d drift = _mm256_i32gather_pd(shift.drift, a, 8);
    const __m256d half_gap = _mm256_i32gather_pd(shift.half_gap, a, 8);
    const __m256d is_argmax =
        _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpeq_epi32(a, argmax)));
    const __m256d u = _mm256_add_pd(_mm256_cvtps_pd(_mm_loadu_ps(upper + i)), drift);
    const __m256d l = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(lower + i)),
                                    _mm256_blendv_pd(drift_max, drift_second, is_argmax));
    // max_pd(l, g) returns g on equality or NaN, as std::max(g, l).
    const __m256d bound = _mm256_max_pd(l, half_gap);
    _mm_storeu_ps(lower + i, round_down4(l));
    _mm_storeu_ps(upper + i, round_up4(u));
    int fail = _mm256_movemask_pd(_mm256_cmp_pd(u, bound, _CMP_NLE_UQ));  // !(u <= bound)
    if (fail == 0) continue;
    _mm256_store_pd(lane_bound, bound);
    for (int k = 0; k < 4; ++k)
      if (fail & (1 << k)) {
        failing[found] = std::uint32_t(i + std::size_t(k));
        bounds[found] = lane_bound[k];
        ++found;
      }
  }
  return move_bounds_scalar(label, upper, lower, i, count, shift, failing, bounds, found);
}

#endif

}  // namespace

std::size_t move_bounds(const std::uint32_t* label, float* upper, float* lower,
                        std::size_t count, const BoundShift& shift, std::uint32_t* failing,
                        double* bounds) {
#ifdef RADIAL_BOUNDS_AVX2
  if (use_avx2_kernels() || use_avx512_kernels())
    return move_bounds_avx2(label, upper, lower, count, shift, failing, bounds);
#endif
  return move_bounds_scalar(label, upper, lower, 0, count, shift, failing, bounds, 0);
}

}  // namespace radial::detail
