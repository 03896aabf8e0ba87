// Fused Gaussian activations (gaussian_rows.hpp). Centres are kept transposed, ct[k][j] = c_jk,
// with h_j = ||c_j||^2 and w_j = 1 / sigma_j^2, and r2 = max(0, (||x||^2 - 2 x.c_j) + h_j) w_j
// rounded as SquaredDistances rounds it (a row equal to a centre gives r2 = 0 exactly, as the
// GEMM path does: kernel systems with near-equal rows are sensitive to the diagonal). Single
// precision keeps ct scaled, c_jk w_j about the centres' mean, with h_j = -||c_j||^2 w_j / 2:
// -r2 / 2 = x.ct_j + h_j - w_j ||x||^2 / 2, one operation fewer. A tile is R <= 4 rows by 16
// centres (double) or 32 (single), its accumulators in registers over the d inputs; the centres
// are visited in chunks whose ct fits in L1, the chunk's columns for every row of the call before
// the next chunk.
#include "radial/numerics/gaussian_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "radial/core/errors.hpp"
#include "radial/exec/cpu.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RADIAL_GAUSSIAN_ROWS 1
#include <immintrin.h>

#include "exp_kernels.hpp"
// GCC 12 warns that the AVX-512 min/max intrinsics read their undefined pass-through operand
// (_mm512_undefined_pd); they do not.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace radial {

namespace {

constexpr std::size_t tile_cols = 32;  // the widest step (single precision, AVX-512)

struct Tables {
  std::size_t m = 0, d = 0, mp = 0;  // mp: M rounded up to whole tiles
  std::vector<double> ct, h, w;     // d x mp, mp, mp (zero past M)
  bool avx512 = false;
  // Single precision: the same of the centres less their mean g (ctf, hf; wf = w), so that the
  // identity's terms are the spread, not the location, of the data.
  bool single = false;
  std::vector<float> ctf, hf, wf;
  std::vector<double> g;  // d
};

}  // namespace

struct GaussianRows::Impl : Tables {};

#ifdef RADIAL_GAUSSIAN_ROWS
namespace {

constexpr std::size_t tile_rows = 4;
// ct columns per chunk: d x chunk values within 32 KB (L1), at least one tile.
std::size_t chunk_cols(std::size_t d, std::size_t value_bytes) {
  const std::size_t fit = (32 * 1024 / value_bytes) / std::max<std::size_t>(1, d);
  return std::max(tile_cols, fit / tile_cols * tile_cols);
}

// R rows of x (xnorm[r] = ||x_r||^2) against centres [j0, j1) of the chunk.
template <int R>
__attribute__((target("avx512f"))) void tiles_avx512(const Tables& s,
                                                     const double* x, const double* xnorm,
                                                     std::size_t j0, std::size_t j1, double* out,
                                                     std::size_t stride, double*) {
  const std::size_t d = s.d, mp = s.mp;
  const __m512d zero = _mm512_setzero_pd();
  for (std::size_t j = j0; j < j1; j += 16) {
    __m512d acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = zero;
    const double* c = s.ct.data() + j;
    for (std::size_t k = 0; k < d; ++k, c += mp) {
      const __m512d c0 = _mm512_loadu_pd(c), c1 = _mm512_loadu_pd(c + 8);
      for (int r = 0; r < R; ++r) {
        const __m512d xb = _mm512_set1_pd(x[r * d + k]);
        acc[r][0] = _mm512_fmadd_pd(xb, c0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_pd(xb, c1, acc[r][1]);
      }
    }
    const __m512d h0 = _mm512_loadu_pd(s.h.data() + j), h1 = _mm512_loadu_pd(s.h.data() + j + 8);
    const __m512d w0 = _mm512_loadu_pd(s.w.data() + j), w1 = _mm512_loadu_pd(s.w.data() + j + 8);
    const std::size_t left = j < s.m ? std::min<std::size_t>(16, s.m - j) : 0;
    const __mmask8 k0 = left >= 8 ? 0xff : __mmask8((1u << left) - 1);
    const __mmask8 k1 = left >= 16 ? 0xff : left <= 8 ? 0 : __mmask8((1u << (left - 8)) - 1);
    for (int r = 0; r < R; ++r) {
      // -max(0, (||x||^2 - 2 x.c) + ||c||^2) w / 2, rounded as SquaredDistances rounds it.
      const __m512d xn = _mm512_set1_pd(xnorm[r]), two = _mm512_set1_pd(2.0);
      const __m512d half = _mm512_set1_pd(-0.5);
      const __m512d t0 = _mm512_mul_pd(
          _mm512_mul_pd(_mm512_max_pd(_mm512_add_pd(_mm512_fnmadd_pd(two, acc[r][0], xn), h0),
                                      zero),
                        w0),
          half);
      const __m512d t1 = _mm512_mul_pd(
          _mm512_mul_pd(_mm512_max_pd(_mm512_add_pd(_mm512_fnmadd_pd(two, acc[r][1], xn), h1),
                                      zero),
                        w1),
          half);
      double* o = out + r * stride + j;
      _mm512_mask_storeu_pd(o, k0, exp_kernels::exp_core_avx512(t0));
      _mm512_mask_storeu_pd(o + 8, k1, exp_kernels::exp_core_avx512(t1));
    }
  }
}

// Single precision, one step: the activations e[r][h] of R rows of x (float, less g; a[r] =
// -||x_r - g||^2 / 2) at the 16 centres from j + 16 h, the exp in single precision.
template <int R>
__attribute__((target("avx512f"), always_inline)) inline void single_step_avx512(
    const Tables& s, const float* x, const float* a, std::size_t j, __m512 (&e)[R][2]) {
  const std::size_t d = s.d, mp = s.mp;
  const __m512 zero = _mm512_setzero_ps();
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = zero;
  const float* c = s.ctf.data() + j;
  for (std::size_t k = 0; k < d; ++k, c += mp) {
    const __m512 c0 = _mm512_loadu_ps(c), c1 = _mm512_loadu_ps(c + 16);
    for (int r = 0; r < R; ++r) {
      const __m512 xb = _mm512_set1_ps(x[r * d + k]);
      acc[r][0] = _mm512_fmadd_ps(xb, c0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(xb, c1, acc[r][1]);
    }
  }
  const __m512 h0 = _mm512_loadu_ps(s.hf.data() + j), h1 = _mm512_loadu_ps(s.hf.data() + j + 16);
  const __m512 w0 = _mm512_loadu_ps(s.wf.data() + j), w1 = _mm512_loadu_ps(s.wf.data() + j + 16);
  for (int r = 0; r < R; ++r) {
    const __m512 ar = _mm512_set1_ps(a[r]);
    e[r][0] = exp_kernels::exp_core_avx512_ps(
        _mm512_min_ps(_mm512_fmadd_ps(ar, w0, _mm512_add_ps(acc[r][0], h0)), zero));
    e[r][1] = exp_kernels::exp_core_avx512_ps(
        _mm512_min_ps(_mm512_fmadd_ps(ar, w1, _mm512_add_ps(acc[r][1], h1)), zero));
  }
}

// Single precision: R rows against centres [j0, j1), 32 per step, each value widened to
// double as it is stored.
template <int R>
__attribute__((target("avx512f"))) void tiles_avx512_single(const Tables& s, const float* x,
                                                            const float* a, std::size_t j0,
                                                            std::size_t j1, double* out,
                                                            std::size_t stride, float*) {
  for (std::size_t j = j0; j < j1; j += 32) {
    __m512 e[R][2];
    single_step_avx512<R>(s, x, a, j, e);
    const std::size_t left = j < s.m ? std::min<std::size_t>(32, s.m - j) : 0;
    __mmask8 mask[4];
    for (std::size_t q = 0; q < 4; ++q)
      mask[q] = left >= 8 * (q + 1) ? 0xff
                : left <= 8 * q     ? 0
                                    : __mmask8((1u << (left - 8 * q)) - 1);
    for (int r = 0; r < R; ++r) {
      double* o = out + r * stride + j;
      for (int q = 0; q < 4; ++q) {
        const __m256 half = _mm256_castpd_ps(
            _mm512_extractf64x4_pd(_mm512_castps_pd(e[r][q / 2]), q % 2));
        _mm512_mask_storeu_pd(o + 8 * q, mask[q], _mm512_cvtps_pd(half));
      }
    }
  }
}

// exp of 4 arguments <= 0 into o (lanes < count): the inlined core, and std::exp for lanes
// whose result is below DBL_MIN, where the core's exponent bits would wrap.
__attribute__((target("avx2,fma"), always_inline)) inline void store_exp_avx2(__m256d t,
                                                                              double* o,
                                                                              std::size_t count) {
  static const double normal_min = std::log(std::numeric_limits<double>::min());
  const __m256d low = _mm256_set1_pd(normal_min);
  const int tiny = _mm256_movemask_pd(_mm256_cmp_pd(t, low, _CMP_LT_OQ));
  const __m256d e = exp_kernels::exp_core_avx2(_mm256_max_pd(t, low));
  if (count >= 4 && !tiny) {
    _mm256_storeu_pd(o, e);
    return;
  }
  alignas(32) double tv[4], ev[4];
  _mm256_store_pd(tv, t);
  _mm256_store_pd(ev, e);
  for (std::size_t l = 0; l < std::min<std::size_t>(count, 4); ++l)
    o[l] = (tiny >> l) & 1 ? std::exp(tv[l]) : ev[l];
}

// R rows of x against centres [j0, j1) in two sweeps: the arguments -r2 / 2 of each 8 centres
// into `args` (R x (j1 - j0)), their accumulators in registers; then the exp of each row's
// arguments. The fused loop (exp in the same step) spilled its constants and accumulators to
// the stack: 4.4 ns a value at d = 20 on an AMD EPYC (Zen 3), against 2.9-3.3 ns in two sweeps.
template <int R>
__attribute__((target("avx2,fma"))) void tiles_avx2(const Tables& s, const double* x,
                                                    const double* xnorm, std::size_t j0,
                                                    std::size_t j1, double* out,
                                                    std::size_t stride, double* args) {
  const std::size_t d = s.d, mp = s.mp, width = j1 - j0;
  const __m256d zero = _mm256_setzero_pd(), two = _mm256_set1_pd(2.0);
  const __m256d half = _mm256_set1_pd(-0.5);
  __m256d xn[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) xn[r] = _mm256_set1_pd(xnorm[r]);
  // 8 centres per step: R x 2 accumulators and two loads stay within 16 registers.
  for (std::size_t j = j0; j < j1; j += 8) {
    __m256d acc[R][2];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = zero;
    const double* c = s.ct.data() + j;
    for (std::size_t k = 0; k < d; ++k, c += mp) {
      const __m256d c0 = _mm256_loadu_pd(c), c1 = _mm256_loadu_pd(c + 4);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256d xb = _mm256_broadcast_sd(x + r * d + k);
        acc[r][0] = _mm256_fmadd_pd(xb, c0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_pd(xb, c1, acc[r][1]);
      }
    }
    const __m256d h0 = _mm256_loadu_pd(s.h.data() + j), h1 = _mm256_loadu_pd(s.h.data() + j + 4);
    const __m256d w0 = _mm256_loadu_pd(s.w.data() + j), w1 = _mm256_loadu_pd(s.w.data() + j + 4);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      // -max(0, (||x||^2 - 2 x.c) + ||c||^2) w / 2, rounded as SquaredDistances rounds it.
      double* a = args + r * width + (j - j0);
      _mm256_storeu_pd(a, _mm256_mul_pd(_mm256_mul_pd(_mm256_max_pd(_mm256_add_pd(
                                            _mm256_fnmadd_pd(two, acc[r][0], xn[r]), h0), zero),
                                                      w0), half));
      _mm256_storeu_pd(a + 4, _mm256_mul_pd(_mm256_mul_pd(_mm256_max_pd(_mm256_add_pd(
                                                _mm256_fnmadd_pd(two, acc[r][1], xn[r]), h1),
                                                                        zero),
                                                          w1), half));
    }
  }
  const std::size_t end = std::min(j1, s.m);
  if (end <= j0) return;
  for (int r = 0; r < R; ++r) {
    const double* a = args + r * width;
    double* o = out + r * stride + j0;
    const std::size_t n = end - j0;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      store_exp_avx2(_mm256_loadu_pd(a + i), o + i, 4);
      store_exp_avx2(_mm256_loadu_pd(a + i + 4), o + i + 4, 4);
    }
    for (; i < n; i += 4) store_exp_avx2(_mm256_loadu_pd(a + i), o + i, n - i);
  }
}

// The same in AVX2 registers, 16 centres per step, in two sweeps as tiles_avx2: the arguments
// into `args` (R x (j1 - j0) floats), then each row's exp, widened to double as it is stored;
// activations below FLT_MIN (arguments below -87.3) are 0.
template <int R>
__attribute__((target("avx2,fma"))) void tiles_avx2_single(const Tables& s, const float* x,
                                                           const float* a, std::size_t j0,
                                                           std::size_t j1, double* out,
                                                           std::size_t stride, float* args) {
  const std::size_t d = s.d, mp = s.mp, width = j1 - j0;
  const __m256 zero = _mm256_setzero_ps();
  __m256 ar[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) ar[r] = _mm256_set1_ps(a[r]);
  for (std::size_t j = j0; j < j1; j += 16) {
    __m256 acc[R][2];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = zero;
    const float* c = s.ctf.data() + j;
    for (std::size_t k = 0; k < d; ++k, c += mp) {
      const __m256 c0 = _mm256_loadu_ps(c), c1 = _mm256_loadu_ps(c + 8);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const __m256 xb = _mm256_broadcast_ss(x + r * d + k);
        acc[r][0] = _mm256_fmadd_ps(xb, c0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(xb, c1, acc[r][1]);
      }
    }
    const __m256 h0 = _mm256_loadu_ps(s.hf.data() + j), h1 = _mm256_loadu_ps(s.hf.data() + j + 8);
    const __m256 w0 = _mm256_loadu_ps(s.wf.data() + j), w1 = _mm256_loadu_ps(s.wf.data() + j + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* t = args + r * width + (j - j0);
      _mm256_storeu_ps(t, _mm256_min_ps(_mm256_fmadd_ps(ar[r], w0, _mm256_add_ps(acc[r][0], h0)),
                                        zero));
      _mm256_storeu_ps(t + 8, _mm256_min_ps(
                                  _mm256_fmadd_ps(ar[r], w1, _mm256_add_ps(acc[r][1], h1)), zero));
    }
  }
  const std::size_t end = std::min(j1, s.m);
  if (end <= j0) return;
  const __m256 low = _mm256_set1_ps(-87.3f);
  for (int r = 0; r < R; ++r) {
    const float* t = args + r * width;
    double* o = out + r * stride + j0;
    const std::size_t n = end - j0;
    for (std::size_t i = 0; i < n; i += 8) {
      const __m256 v = _mm256_loadu_ps(t + i);
      const __m256 tiny = _mm256_cmp_ps(v, low, _CMP_LT_OQ);
      const __m256 e = _mm256_andnot_ps(tiny, exp_kernels::exp_core_avx2_ps(_mm256_max_ps(v, low)));
      const __m256d lo = _mm256_cvtps_pd(_mm256_castps256_ps128(e));
      const __m256d hi = _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1));
      if (i + 8 <= n) {
        _mm256_storeu_pd(o + i, lo);
        _mm256_storeu_pd(o + i + 4, hi);
        continue;
      }
      alignas(32) double lanes[8];
      _mm256_store_pd(lanes, lo);
      _mm256_store_pd(lanes + 4, hi);
      for (std::size_t l = 0; l < n - i; ++l) o[i + l] = lanes[l];
    }
  }
}

// Single precision, the normal products' first sweep: tiles_avx512_single's activations of R
// rows against centres [j0, j1), zero past M, stored as float (stride mp), and their dot
// products with the K columns of X (xt: K x p, double) added in double to each row's 8 lanes
// (lanes: R x K x 8, kept between chunks).
template <int R, int K>
__attribute__((target("avx512f"))) void dot_tiles_avx512(const Tables& s, const float* x,
                                                         const float* a, std::size_t j0,
                                                         std::size_t j1, float* out,
                                                         const double* xt, std::size_t p,
                                                         double* lanes) {
  const std::size_t mp = s.mp;
  __m512d dot[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) dot[r][c] = _mm512_loadu_pd(lanes + (r * K + c) * 8);
  for (std::size_t j = j0; j < j1; j += 32) {
    __m512 e[R][2];
    single_step_avx512<R>(s, x, a, j, e);
    const std::size_t left = j < s.m ? std::min<std::size_t>(32, s.m - j) : 0;
    const __mmask16 m0 = left >= 16 ? 0xffff : __mmask16((1u << left) - 1);
    const __mmask16 m1 = left >= 32 ? 0xffff : left <= 16 ? 0 : __mmask16((1u << (left - 16)) - 1);
    for (int r = 0; r < R; ++r) {
      e[r][0] = _mm512_maskz_mov_ps(m0, e[r][0]);
      e[r][1] = _mm512_maskz_mov_ps(m1, e[r][1]);
      _mm512_storeu_ps(out + r * mp + j, e[r][0]);
      _mm512_storeu_ps(out + r * mp + j + 16, e[r][1]);
    }
    // X's columns past M (the bias, then the next row or the end) are not read.
    for (int q = 0; q < 4; ++q) {
      const std::size_t at = j + 8 * std::size_t(q);
      const std::size_t valid = at < s.m ? std::min<std::size_t>(8, s.m - at) : 0;
      if (valid == 0) break;
      const __mmask8 mask = __mmask8((1u << valid) - 1);
      __m512d v[R];
      for (int r = 0; r < R; ++r) {
        const __m512d both = _mm512_castps_pd(e[r][q / 2]);
        v[r] = _mm512_cvtps_pd(_mm256_castpd_ps(q % 2 ? _mm512_extractf64x4_pd(both, 1)
                                                      : _mm512_extractf64x4_pd(both, 0)));
      }
      for (int c = 0; c < K; ++c) {
        const __m512d xv = _mm512_maskz_loadu_pd(mask, xt + std::size_t(c) * p + at);
        for (int r = 0; r < R; ++r) dot[r][c] = _mm512_fmadd_pd(v[r], xv, dot[r][c]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) _mm512_storeu_pd(lanes + (r * K + c) * 8, dot[r][c]);
}

// The second sweep over columns [j0, j1) of j < M: qt_c[j] += sum_r u_rc phi_rj, rows in order.
template <int R, int K>
__attribute__((target("avx512f"))) void add_rows_avx512(const float* phi, std::size_t mp,
                                                        std::size_t m, std::size_t j0,
                                                        std::size_t j1, const double* u,
                                                        double* qt, std::size_t p) {
  __m512d scale[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) scale[r][c] = _mm512_set1_pd(u[r * K + c]);
  for (std::size_t j = j0; j < j1; j += 8) {
    const __mmask8 mask = j + 8 <= m ? 0xff : __mmask8((1u << (m - j)) - 1);
    __m512d v[R];
    for (int r = 0; r < R; ++r) v[r] = _mm512_cvtps_pd(_mm256_loadu_ps(phi + r * mp + j));
    for (int c = 0; c < K; ++c) {
      double* q = qt + std::size_t(c) * p + j;
      __m512d sum = _mm512_maskz_loadu_pd(mask, q);
      for (int r = 0; r < R; ++r) sum = _mm512_fmadd_pd(scale[r][c], v[r], sum);
      _mm512_mask_storeu_pd(q, mask, sum);
    }
  }
}

using DotTiles = void (*)(const Tables&, const float*, const float*, std::size_t, std::size_t,
                          float*, const double*, std::size_t, double*);
using AddRows = void (*)(const float*, std::size_t, std::size_t, std::size_t, std::size_t,
                         const double*, double*, std::size_t);

template <int K>
struct NormalKernels {
  static constexpr DotTiles dots[tile_rows] = {dot_tiles_avx512<1, K>, dot_tiles_avx512<2, K>,
                                               dot_tiles_avx512<3, K>, dot_tiles_avx512<4, K>};
  static constexpr AddRows add[2] = {add_rows_avx512<1, K>, add_rows_avx512<4, K>};
};

// The rows less g, in single precision; their norms in double, then rounded (a = -norm / 2).
void single_rows(const Tables& s, const double* x, std::size_t rows, std::vector<float>& xf,
                 std::vector<float>& a) {
  xf.resize(rows * s.d);
  a.resize(rows);
  for (std::size_t n = 0; n < rows; ++n) {
    double norm = 0;
    for (std::size_t k = 0; k < s.d; ++k) {
      const double v = x[n * s.d + k] - s.g[k];
      xf[n * s.d + k] = float(v);
      norm += v * v;
    }
    a[n] = float(-0.5 * norm);
  }
}

template <int K>
void normal_products_k(const Tables& s, const double* x, std::size_t rows, const double* xt,
                       std::size_t p, double* qt) {
  thread_local std::vector<float> xf, a, phi;
  thread_local std::vector<double> lanes, u;
  single_rows(s, x, rows, xf, a);
  phi.resize(rows * s.mp);
  lanes.assign(rows * K * 8, 0.0);
  const std::size_t chunk = chunk_cols(s.d, sizeof(float));
  for (std::size_t j0 = 0; j0 < s.mp; j0 += chunk) {
    const std::size_t j1 = std::min(s.mp, j0 + chunk);
    for (std::size_t n = 0; n < rows; n += tile_rows) {
      const std::size_t r = std::min(tile_rows, rows - n);
      NormalKernels<K>::dots[r - 1](s, xf.data() + n * s.d, a.data() + n, j0, j1,
                                    phi.data() + n * s.mp, xt, p, lanes.data() + n * K * 8);
    }
  }
  // u = Phi_b X, the bias column (1, last) included.
  u.resize(rows * K);
  for (std::size_t n = 0; n < rows; ++n)
    for (int c = 0; c < K; ++c) {
      const double* l = lanes.data() + (n * K + std::size_t(c)) * 8;
      u[n * K + std::size_t(c)] = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])) +
                                  xt[std::size_t(c) * p + s.m];
    }
  // Q += Phi_b^T u in column chunks that keep Q's chunk in L1 over the rows.
  constexpr std::size_t add_chunk = 512;
  const std::size_t whole = rows - rows % 4;
  for (std::size_t j0 = 0; j0 < s.m; j0 += add_chunk) {
    const std::size_t j1 = std::min(s.m, j0 + add_chunk);
    for (std::size_t n = 0; n < whole; n += 4)
      NormalKernels<K>::add[1](phi.data() + n * s.mp, s.mp, s.m, j0, j1, u.data() + n * K, qt, p);
    for (std::size_t n = whole; n < rows; ++n)
      NormalKernels<K>::add[0](phi.data() + n * s.mp, s.mp, s.m, j0, j1, u.data() + n * K, qt, p);
  }
  for (std::size_t n = 0; n < rows; ++n)
    for (int c = 0; c < K; ++c) qt[std::size_t(c) * p + s.m] += u[n * K + std::size_t(c)];
}

// (The last argument: R x (j1 - j0) doubles of scratch for the kernels that sweep twice.)
using Tiles = void (*)(const Tables&, const double*, const double*, std::size_t,
                       std::size_t, double*, std::size_t, double*);
using SingleTiles = void (*)(const Tables&, const float*, const float*, std::size_t,
                             std::size_t, double*, std::size_t, float*);

}  // namespace
#endif

const char* GaussianRows::kernel() {
#ifdef RADIAL_GAUSSIAN_ROWS
  if (use_avx512_kernels()) return "avx512";
  if (use_avx2_kernels()) return "avx2";
#endif
  return nullptr;
}

std::vector<const char*> GaussianRows::kernels() {
  std::vector<const char*> out;
#ifdef RADIAL_GAUSSIAN_ROWS
  if (use_avx512_kernels()) out.push_back("avx512");
  if (use_avx2_kernels()) out.push_back("avx2");
#endif
  return out;
}

bool GaussianRows::supports(const Centres& centres, Metric metric) {
  return metric == Metric::Euclidean || centres.shape == Shape::None ||
         centres.shape == Shape::Spherical;
}

bool GaussianRows::single_precision_suits(const Centres& centres, Metric metric) {
  if (!supports(centres, metric) || centres.means.dimension() != 2 || centres.count() == 0)
    return false;
  const std::size_t m = centres.count(), d = centres.dim();
  const bool spherical = metric != Metric::Euclidean && centres.shape == Shape::Spherical;
  std::vector<double> g(d, 0.0);
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k) g[k] += centres.means(j, k) / double(m);
  for (std::size_t j = 0; j < m; ++j) {
    double norm = 0;
    for (std::size_t k = 0; k < d; ++k)
      norm += (centres.means(j, k) - g[k]) * (centres.means(j, k) - g[k]);
    const double v = spherical ? centres.variances(j) : 1.0;
    if (!(norm / v <= single_precision_max_term)) return false;
  }
  return true;
}

GaussianRows::GaussianRows(const Centres& centres, Metric metric, const char* kernel,
                           Precision precision)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (!supports(centres, metric) || centres.means.dimension() != 2)
    throw ShapeError("GaussianRows: only Euclidean or spherical distances to an M x d matrix of "
                     "centres");
  if (!kernel || (std::strcmp(kernel, "avx512") != 0 && std::strcmp(kernel, "avx2") != 0))
    throw Error("GaussianRows: no fused kernel for this CPU");
  s.avx512 = std::strcmp(kernel, "avx512") == 0;
  s.m = centres.count();
  s.d = centres.dim();
  s.mp = (s.m + tile_cols - 1) / tile_cols * tile_cols;
  const bool spherical = metric != Metric::Euclidean && centres.shape == Shape::Spherical;
  if (spherical && centres.variances.size() != s.m)
    throw ShapeError("GaussianRows: spherical centres need " + std::to_string(s.m) +
                     " variances, found " + std::to_string(centres.variances.size()));
  s.ct.assign(s.d * s.mp, 0.0);
  s.h.assign(s.mp, 0.0);
  s.w.assign(s.mp, 0.0);
  for (std::size_t j = 0; j < s.m; ++j) {
    const double v = spherical ? centres.variances(j) : 1.0;
    if (!(v > 0) || !std::isfinite(v))
      throw ShapeError("GaussianRows: centre " + std::to_string(j) + " has variance " +
                       std::to_string(v) + "; variances must be finite and > 0");
    const double inv = 1.0 / v;
    double norm = 0;
    for (std::size_t k = 0; k < s.d; ++k) {
      const double c = centres.means(j, k);
      norm += c * c;
      s.ct[k * s.mp + j] = c;
    }
    s.h[j] = norm;
    s.w[j] = inv;
  }
  s.single = precision == Precision::Single;
  if (!s.single) return;
  s.g.assign(s.d, 0.0);
  for (std::size_t j = 0; j < s.m; ++j)
    for (std::size_t k = 0; k < s.d; ++k) s.g[k] += centres.means(j, k) / double(s.m);
  s.ctf.assign(s.d * s.mp, 0.0f);
  s.hf.assign(s.mp, 0.0f);
  s.wf.assign(s.mp, 0.0f);
  for (std::size_t j = 0; j < s.m; ++j) {
    double norm = 0;
    for (std::size_t k = 0; k < s.d; ++k) {
      const double c = centres.means(j, k) - s.g[k];
      norm += c * c;
      s.ctf[k * s.mp + j] = float(c * s.w[j]);
    }
    s.hf[j] = float(-0.5 * norm * s.w[j]);
    s.wf[j] = float(s.w[j]);
  }
}

GaussianRows::~GaussianRows() = default;
GaussianRows::GaussianRows(GaussianRows&&) noexcept = default;
GaussianRows& GaussianRows::operator=(GaussianRows&&) noexcept = default;

std::size_t GaussianRows::count() const { return impl_->m; }

bool GaussianRows::single_precision() const { return impl_->single; }

void GaussianRows::compute_single(const double* x, std::size_t rows, double* out,
                                  std::size_t stride) const {
#ifdef RADIAL_GAUSSIAN_ROWS
  const Impl& s = *impl_;
  static constexpr SingleTiles avx512[tile_rows] = {
      tiles_avx512_single<1>, tiles_avx512_single<2>, tiles_avx512_single<3>,
      tiles_avx512_single<4>};
  static constexpr SingleTiles avx2[tile_rows] = {tiles_avx2_single<1>, tiles_avx2_single<2>,
                                                  tiles_avx2_single<3>, tiles_avx2_single<4>};
  const SingleTiles* tiles = s.avx512 ? avx512 : avx2;
  std::vector<float> xf, a;
  single_rows(s, x, rows, xf, a);
  const std::size_t chunk = chunk_cols(s.d, sizeof(float));
  std::vector<float> args(s.avx512 ? 0 : tile_rows * std::min(chunk, s.mp));
  for (std::size_t j0 = 0; j0 < s.mp; j0 += chunk) {
    const std::size_t j1 = std::min(s.mp, j0 + chunk);
    for (std::size_t n = 0; n < rows; n += tile_rows) {
      const std::size_t r = std::min(tile_rows, rows - n);
      tiles[r - 1](s, xf.data() + n * s.d, a.data() + n, j0, j1, out + n * stride, stride,
                   args.data());
    }
  }
#else
  (void)x, (void)rows, (void)out, (void)stride;
#endif
}

bool GaussianRows::add_normal_products(const double* x, std::size_t rows, const double* xt,
                                       std::size_t k, double* qt) const {
#ifdef RADIAL_GAUSSIAN_ROWS
  const Impl& s = *impl_;
  if (!s.single || !s.avx512 || s.m == 0) return false;
  const std::size_t p = s.m + 1;
  switch (k) {
    case 1: normal_products_k<1>(s, x, rows, xt, p, qt); return true;
    case 2: normal_products_k<2>(s, x, rows, xt, p, qt); return true;
    case 3: normal_products_k<3>(s, x, rows, xt, p, qt); return true;
    case 4: normal_products_k<4>(s, x, rows, xt, p, qt); return true;
    default: return false;
  }
#else
  (void)x, (void)rows, (void)xt, (void)k, (void)qt;
  return false;
#endif
}

void GaussianRows::compute(const double* x, std::size_t rows, double* out,
                           std::size_t stride) const {
#ifdef RADIAL_GAUSSIAN_ROWS
  const Impl& s = *impl_;
  if (s.m == 0 || rows == 0) return;
  static constexpr Tiles avx512[tile_rows] = {tiles_avx512<1>, tiles_avx512<2>, tiles_avx512<3>,
                                              tiles_avx512<4>};
  static constexpr Tiles avx2[tile_rows] = {tiles_avx2<1>, tiles_avx2<2>, tiles_avx2<3>,
                                            tiles_avx2<4>};
  if (s.single) return compute_single(x, rows, out, stride);
  const Tiles* tiles = s.avx512 ? avx512 : avx2;
  std::vector<double> xnorm(rows);
  for (std::size_t n = 0; n < rows; ++n) {
    double norm = 0;
    for (std::size_t k = 0; k < s.d; ++k) norm += x[n * s.d + k] * x[n * s.d + k];
    xnorm[n] = norm;
  }
  const std::size_t chunk = chunk_cols(s.d, sizeof(double));
  std::vector<double> args(s.avx512 ? 0 : tile_rows * std::min(chunk, s.mp));
  for (std::size_t j0 = 0; j0 < s.mp; j0 += chunk) {
    const std::size_t j1 = std::min(s.mp, j0 + chunk);
    for (std::size_t n = 0; n < rows; n += tile_rows) {
      const std::size_t r = std::min(tile_rows, rows - n);
      tiles[r - 1](s, x + n * s.d, xnorm.data() + n, j0, j1, out + n * stride, stride,
                   args.data());
    }
  }
#else
  (void)x, (void)rows, (void)out, (void)stride;
  throw Error("GaussianRows: no fused kernel in this build");
#endif
}

}  // namespace radial
