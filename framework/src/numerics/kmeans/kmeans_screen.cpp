// Register-blocked distance + arg-min kernel for the k-means screen (see kmeans_screen.hpp).
// Four rows at a time against a panel of 16 centres: 4 accumulators of 16 lanes start at
// ||c||^2 and take d FMAs with the broadcast -2 x_k; each lane then keeps its smallest value,
// its index and its second-smallest value. The lanes are merged per row at the end, preferring
// the lower index on ties, so the result equals a plain scan of the same values. On CPUs with
// AVX2 but not AVX-512 each panel is two 8-lane halves: the same sums in the same order, so the
// same values, indices and seconds.
#include "kmeans_screen.hpp"

#include <algorithm>
#include <limits>

#include "radial/exec/cpu.hpp"

#if defined(__GNUC__) && defined(__x86_64__)
// GCC 12's reduce intrinsics read a deliberately undefined vector (_mm512_undefined_*), which
// -Wuninitialized reports from inside the system header.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC only: clang has no such group (-Wunknown-warning-option)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define RADIAL_SCREEN_X86_KERNELS 1
#endif

namespace radial::detail {

void pack_centres(const Matrix& centres, const Vector& norm2, CentrePanels& out) {
  const std::size_t m = centres.shape(0), d = centres.shape(1);
  out.count = m;
  out.dim = d;
  out.panels = (m + 15) / 16;
  out.values.assign(out.panels * d * 16, 0.0f);
  out.norm2.assign(out.panels * 16, std::numeric_limits<float>::infinity());
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t q = j / 16, l = j % 16;
    for (std::size_t k = 0; k < d; ++k) out.values[(q * d + k) * 16 + l] = float(centres(j, k));
    out.norm2[j] = float(norm2(j));
  }
}

#ifdef RADIAL_SCREEN_X86_KERNELS

bool screen_available() { return use_avx512_kernels() || use_avx2_kernels(); }

namespace {

struct LaneState {
  __m512 best, second;
  __m512i index;
};

__attribute__((target("avx512f"))) inline void lane_update(__m512 value, __m512i index,
                                                           LaneState& s) {
  s.second = _mm512_min_ps(s.second, _mm512_max_ps(s.best, value));
  const __mmask16 lower = _mm512_cmp_ps_mask(value, s.best, _CMP_LT_OQ);
  s.index = _mm512_mask_mov_epi32(s.index, lower, index);
  s.best = _mm512_min_ps(s.best, value);
}

// The row's smallest value over the lanes, the lowest index holding it, and the second
// smallest (a second lane at the same minimum makes the second equal to the best).
__attribute__((target("avx512f"))) inline void lane_merge(const LaneState& s, float& best,
                                                          float& second, std::uint32_t& index) {
  const float b = _mm512_reduce_min_ps(s.best);
  const __mmask16 at_min = _mm512_cmp_ps_mask(s.best, _mm512_set1_ps(b), _CMP_EQ_OQ);
  const std::uint32_t i = std::uint32_t(
      _mm512_mask_reduce_min_epu32(at_min, s.index));  // lanes hold distinct indices
  const __m512i lane_of_i = _mm512_set1_epi32(int(i % 16));
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __mmask16 chosen = _mm512_cmpeq_epi32_mask(lanes, lane_of_i);
  const __m512 others =
      _mm512_mask_mov_ps(s.best, chosen, _mm512_set1_ps(std::numeric_limits<float>::infinity()));
  best = b;
  second = std::min(_mm512_reduce_min_ps(s.second), _mm512_reduce_min_ps(others));
  index = i;
}

template <int Rows>
__attribute__((target("avx512f"))) void screen_block(const float* x, std::size_t d,
                                                     const CentrePanels& p, float* best,
                                                     float* second, std::uint32_t* index) {
  const __m512 inf = _mm512_set1_ps(std::numeric_limits<float>::infinity());
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  LaneState s[Rows];
  for (int r = 0; r < Rows; ++r) s[r] = {inf, inf, _mm512_setzero_si512()};
  for (std::size_t q = 0; q < p.panels; ++q) {
    const float* c = p.values.data() + q * d * 16;
    const __m512 bias = _mm512_loadu_ps(p.norm2.data() + q * 16);
    __m512 acc[Rows];
    for (int r = 0; r < Rows; ++r) acc[r] = bias;
    for (std::size_t k = 0; k < d; ++k) {
      const __m512 ck = _mm512_loadu_ps(c + k * 16);
      for (int r = 0; r < Rows; ++r)
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(x[std::size_t(r) * d + k]), ck, acc[r]);
    }
    const __m512i idx = _mm512_add_epi32(lanes, _mm512_set1_epi32(int(q * 16)));
    for (int r = 0; r < Rows; ++r) lane_update(acc[r], idx, s[r]);
  }
  for (int r = 0; r < Rows; ++r) lane_merge(s[r], best[r], second[r], index[r]);
}


// The AVX2 form: lane l of a panel is lane l % 8 of half l / 8.
struct HalfLanes {
  __m256 best, second;
  __m256i index;
};

__attribute__((target("avx2,fma"))) inline void half_update(__m256 value, __m256i index,
                                                             HalfLanes& s) {
  s.second = _mm256_min_ps(s.second, _mm256_max_ps(s.best, value));
  const __m256 lower = _mm256_cmp_ps(value, s.best, _CMP_LT_OQ);
  s.index = _mm256_castps_si256(
      _mm256_blendv_ps(_mm256_castsi256_ps(s.index), _mm256_castsi256_ps(index), lower));
  s.best = _mm256_min_ps(s.best, value);
}

// Horizontal minima of 8 lanes.
__attribute__((target("avx2,fma"))) inline float min_of_lanes(__m256 v) {
  __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_min_ps(m, _mm_movehl_ps(m, m));
  m = _mm_min_ss(m, _mm_shuffle_ps(m, m, 1));
  return _mm_cvtss_f32(m);
}
__attribute__((target("avx2,fma"))) inline std::uint32_t min_of_lanes(__m256i v) {
  __m128i m = _mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
  return std::uint32_t(_mm_cvtsi128_si32(m));
}

// The lanes' indices where their best equals `value`, else the largest index.
__attribute__((target("avx2,fma"))) inline __m256i index_if_at(const HalfLanes& half,
                                                                __m256 value) {
  const __m256 at = _mm256_cmp_ps(half.best, value, _CMP_EQ_OQ);
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(_mm256_set1_epi32(-1)),
                                              _mm256_castsi256_ps(half.index), at));
}

// lane_merge over the 16 lanes of the two halves, in vector registers (a scalar merge of 16
// lanes cost more than the panel products at small d).
__attribute__((target("avx2,fma"))) inline void half_merge(const HalfLanes* h, float& best,
                                                           float& second, std::uint32_t& index) {
  const float b = min_of_lanes(_mm256_min_ps(h[0].best, h[1].best));
  const __m256 at_b = _mm256_set1_ps(b);
  const std::uint32_t i = min_of_lanes(
      _mm256_min_epu32(index_if_at(h[0], at_b), index_if_at(h[1], at_b)));
  // Every lane but the chosen one (lane i % 16) offers its best as a second.
  const __m256i lane_of_i = _mm256_set1_epi32(int(i % 16));
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 chosen0 =
      _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), lane_of_i));
  const __m256 chosen1 = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15), lane_of_i));
  const __m256 others = _mm256_min_ps(_mm256_blendv_ps(h[0].best, inf, chosen0),
                                      _mm256_blendv_ps(h[1].best, inf, chosen1));
  best = b;
  second = min_of_lanes(_mm256_min_ps(_mm256_min_ps(h[0].second, h[1].second), others));
  index = i;
}

template <int Rows>
__attribute__((target("avx2,fma"))) void screen_block_avx2(const float* x, std::size_t d,
                                                           const CentrePanels& p, float* best,
                                                           float* second, std::uint32_t* index) {
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256i low = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i high = _mm256_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15);
  HalfLanes s[Rows][2];
  for (int r = 0; r < Rows; ++r)
    for (int k = 0; k < 2; ++k) s[r][k] = {inf, inf, _mm256_setzero_si256()};
  for (std::size_t q = 0; q < p.panels; ++q) {
    const float* c = p.values.data() + q * d * 16;
    const __m256 bias0 = _mm256_loadu_ps(p.norm2.data() + q * 16);
    const __m256 bias1 = _mm256_loadu_ps(p.norm2.data() + q * 16 + 8);
    __m256 acc[Rows][2];
    for (int r = 0; r < Rows; ++r) {
      acc[r][0] = bias0;
      acc[r][1] = bias1;
    }
    for (std::size_t k = 0; k < d; ++k) {
      const __m256 c0 = _mm256_loadu_ps(c + k * 16);
      const __m256 c1 = _mm256_loadu_ps(c + k * 16 + 8);
      for (int r = 0; r < Rows; ++r) {
        const __m256 xk = _mm256_set1_ps(x[std::size_t(r) * d + k]);
        acc[r][0] = _mm256_fmadd_ps(xk, c0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(xk, c1, acc[r][1]);
      }
    }
    const __m256i base = _mm256_set1_epi32(int(q * 16));
    const __m256i i0 = _mm256_add_epi32(low, base), i1 = _mm256_add_epi32(high, base);
    for (int r = 0; r < Rows; ++r) {
      half_update(acc[r][0], i0, s[r][0]);
      half_update(acc[r][1], i1, s[r][1]);
    }
  }
  for (int r = 0; r < Rows; ++r) half_merge(s[r], best[r], second[r], index[r]);
}

}  // namespace

void screen_rows(const float* x_minus2, std::size_t count, const CentrePanels& panels,
                 float* best, float* second, std::uint32_t* index) {
  const std::size_t d = panels.dim;
  std::size_t r = 0;
  if (use_avx512_kernels()) {
    for (; r + 4 <= count; r += 4)
      screen_block<4>(x_minus2 + r * d, d, panels, best + r, second + r, index + r);
    for (; r < count; ++r)
      screen_block<1>(x_minus2 + r * d, d, panels, best + r, second + r, index + r);
    return;
  }
  for (; r + 4 <= count; r += 4)
    screen_block_avx2<4>(x_minus2 + r * d, d, panels, best + r, second + r, index + r);
  for (; r < count; ++r)
    screen_block_avx2<1>(x_minus2 + r * d, d, panels, best + r, second + r, index + r);
}

#else

bool screen_available() { return false; }

void screen_rows(const float*, std::size_t, const CentrePanels&, float*, float*, std::uint32_t*) {}

#endif

}  // namespace radial::detail
