// Elementwise exp and log over contiguous doubles, vectorised.
//
// Measured on the development machine (x86-64 build without -march flags, 2^20 elements,
// ns per element): std::exp 4.6, xsimd SSE2 6.5, xsimd AVX2 3.2 (only with -mavx2), glibc
// libmvec AVX2 1.3 and AVX-512 1.0. A generic build can only use xsimd's SSE2 batches, which
// lose to glibc's FMA-dispatched scalar exp, so on x86-64 glibc the kernel is chosen at run time:
// libmvec's AVX-512 or AVX2 variants when the CPU has them, otherwise xsimd batches of the width
// the framework was compiled for. libmvec is part of glibc's libm (libm.so links it as needed).
//
// xsimd 8 flushes subnormal results of exp and subnormal arguments of log (log(1e-320) comes out
// near -746.5 instead of -736.8), so an xsimd batch with any lane in those ranges, or with zero,
// negative or NaN arguments to log, is done by std::exp / std::log instead.
#include "radial/numerics/vector_math.hpp"

#include "radial/numerics/cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <xsimd/xsimd.hpp>

// Not with clang (the fuzz build): it refuses vector arguments to the undecorated libmvec
// declarations ("changes the ABI"), so that build uses the xsimd batches.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
#define RADIAL_HAVE_LIBMVEC 1
#include <immintrin.h>
#endif

namespace radial {
namespace {

using Batch = xsimd::batch<double>;
constexpr std::size_t width = Batch::size;

// exp(x) is subnormal (or 0) below log(DBL_MIN) = -708.3964...
const double exp_normal_min = std::log(std::numeric_limits<double>::min());
constexpr double log_normal_min = std::numeric_limits<double>::min();

}  // namespace

void exp_in_place_xsimd(double* values, std::size_t count) {
  const Batch low(exp_normal_min);
  std::size_t i = 0;
  for (; i + width <= count; i += width) {
    const Batch x = Batch::load_unaligned(values + i);
    if (xsimd::any(x < low)) {
      for (std::size_t k = 0; k < width; ++k) values[i + k] = std::exp(values[i + k]);
    } else {
      xsimd::exp(x).store_unaligned(values + i);
    }
  }
  for (; i < count; ++i) values[i] = std::exp(values[i]);
}

void log_in_place_xsimd(double* values, std::size_t count) {
  const Batch low(log_normal_min);
  std::size_t i = 0;
  for (; i + width <= count; i += width) {
    const Batch x = Batch::load_unaligned(values + i);
    // !(x >= DBL_MIN) is also true for NaN lanes.
    if (xsimd::any(!(x >= low))) {
      for (std::size_t k = 0; k < width; ++k) values[i + k] = std::log(values[i + k]);
    } else {
      xsimd::log(x).store_unaligned(values + i);
    }
  }
  for (; i < count; ++i) values[i] = std::log(values[i]);
}

namespace {

#ifdef RADIAL_HAVE_LIBMVEC
// glibc's vector ABI names: 'd' = AVX2 with 4 lanes, 'e' = AVX-512 with 8 lanes.
extern "C" __m256d _ZGVdN4v_exp(__m256d);
extern "C" __m256d _ZGVdN4v_log(__m256d);
extern "C" __m512d _ZGVeN8v_exp(__m512d);
extern "C" __m512d _ZGVeN8v_log(__m512d);

__attribute__((target("avx2,fma"))) void exp_avx2(double* v, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(v + i, _ZGVdN4v_exp(_mm256_loadu_pd(v + i)));
  for (; i < n; ++i) v[i] = std::exp(v[i]);
}
__attribute__((target("avx2,fma"))) void log_avx2(double* v, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(v + i, _ZGVdN4v_log(_mm256_loadu_pd(v + i)));
  for (; i < n; ++i) v[i] = std::log(v[i]);
}
__attribute__((target("avx512f"))) void exp_avx512(double* v, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(v + i, _ZGVeN8v_exp(_mm512_loadu_pd(v + i)));
  for (; i < n; ++i) v[i] = std::exp(v[i]);
}
__attribute__((target("avx512f"))) void log_avx512(double* v, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(v + i, _ZGVeN8v_log(_mm512_loadu_pd(v + i)));
  for (; i < n; ++i) v[i] = std::log(v[i]);
}
#endif

// exp_normalise_rows for any kernel: min/max pass, vector exp of the row, sum and scale.
void exp_normalise_generic(double* a, std::size_t rows, std::size_t m, const double* cap,
                           double* log_sums) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  for (std::size_t n = 0; n < rows; ++n) {
    double* r = a + n * m;
    double mx = minus_inf;
    for (std::size_t j = 0; j < m; ++j) {
      if (cap) r[j] = std::min(r[j], cap[j]);
      mx = std::max(mx, r[j]);
    }
    if (mx == minus_inf) {
      std::fill(r, r + m, 0.0);
      log_sums[n] = minus_inf;
      continue;
    }
    for (std::size_t j = 0; j < m; ++j) r[j] -= mx;
    exp_in_place(r, m);
    double s = 0;
    for (std::size_t j = 0; j < m; ++j) s += r[j];
    log_sums[n] = mx + std::log(s);
    const double inv = 1.0 / s;
    for (std::size_t j = 0; j < m; ++j) r[j] *= inv;
  }
}

#ifdef RADIAL_HAVE_LIBMVEC
// The same in AVX-512 registers, 8 values at a time (masked tail; lanes past m load -inf).
__attribute__((target("avx512f"))) void exp_normalise_avx512(double* a, std::size_t rows,
                                                             std::size_t m, const double* cap,
                                                             double* log_sums) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const __m512d low = _mm512_set1_pd(minus_inf);
  for (std::size_t n = 0; n < rows; ++n) {
    double* r = a + n * m;
    __m512d mx = low;
    for (std::size_t j = 0; j < m; j += 8) {
      const __mmask8 k = m - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (m - j)) - 1u);
      __m512d v = _mm512_mask_loadu_pd(low, k, r + j);
      if (cap) {
        // min(a, cap) as std::min(a, cap) = cap < a ? cap : a.
        const __m512d c = _mm512_mask_loadu_pd(low, k, cap + j);
        v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(c, v, _CMP_LT_OQ), v, c);
        _mm512_mask_storeu_pd(r + j, k, v);
      }
      mx = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(mx, v, _CMP_LT_OQ), mx, v);  // max
    }
    alignas(64) double lanes[8];
    _mm512_store_pd(lanes, mx);  // (GCC 12's _mm512_reduce_* warn spuriously)
    double top = lanes[0];
    for (int l = 1; l < 8; ++l) top = std::max(top, lanes[l]);
    if (top == minus_inf) {
      std::fill(r, r + m, 0.0);
      log_sums[n] = minus_inf;
      continue;
    }
    const __m512d shift = _mm512_set1_pd(top), normal = _mm512_set1_pd(exp_normal_min),
                  zero = _mm512_setzero_pd();
    __m512d sum = _mm512_setzero_pd();
    for (std::size_t j = 0; j < m; j += 8) {
      const __mmask8 k = m - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (m - j)) - 1u);
      const __m512d v = _mm512_sub_pd(_mm512_mask_loadu_pd(low, k, r + j), shift);
      // libmvec takes a scalar path for a whole vector when any lane's result would be
      // subnormal or 0 (far components: common); those lanes become 0 instead, which only
      // drops weights below 2.3e-308 (lanes past m are -inf: 0 as well).
      const __mmask8 tiny = _mm512_cmp_pd_mask(v, normal, _CMP_LT_OQ);
      const __m512d e = _mm512_maskz_mov_pd(__mmask8(~tiny),
                                            _ZGVeN8v_exp(_mm512_mask_blend_pd(tiny, v, zero)));
      _mm512_mask_storeu_pd(r + j, k, e);
      sum = _mm512_add_pd(sum, e);
    }
    _mm512_store_pd(lanes, sum);
    double s = 0;
    for (int l = 0; l < 8; ++l) s += lanes[l];
    log_sums[n] = top + std::log(s);
    const __m512d inv = _mm512_set1_pd(1.0 / s);
    for (std::size_t j = 0; j < m; j += 8) {
      const __mmask8 k = m - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (m - j)) - 1u);
      _mm512_mask_storeu_pd(r + j, k, _mm512_mul_pd(_mm512_maskz_loadu_pd(k, r + j), inv));
    }
  }
}
#endif

struct Kernels {
  void (*exp)(double*, std::size_t);
  void (*log)(double*, std::size_t);
  const char* name;
  void (*exp_normalise)(double*, std::size_t, std::size_t, const double*, double*) =
      exp_normalise_generic;
};

Kernels select_kernels() {
#ifdef RADIAL_HAVE_LIBMVEC
  if (portable_kernels_forced())
    return {exp_in_place_xsimd, log_in_place_xsimd, Batch::arch_type::name()};
  __builtin_cpu_init();
  // libgcc also checks that the OS saves the AVX / AVX-512 registers.
  if (__builtin_cpu_supports("avx512f"))
    return {exp_avx512, log_avx512, "libmvec-avx512",
            use_avx512_kernels() ? exp_normalise_avx512 : exp_normalise_generic};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {exp_avx2, log_avx2, "libmvec-avx2"};
#endif
  return {exp_in_place_xsimd, log_in_place_xsimd, Batch::arch_type::name()};
}

const Kernels& kernels() {
  static const Kernels chosen = select_kernels();
  return chosen;
}

}  // namespace

void exp_in_place(double* values, std::size_t count) { kernels().exp(values, count); }
void log_in_place(double* values, std::size_t count) { kernels().log(values, count); }
const char* vector_math_kernel() { return kernels().name; }

void exp_normalise_rows(double* a, std::size_t rows, std::size_t m, const double* cap,
                        double* log_sums) {
  if (m == 0) {
    for (std::size_t n = 0; n < rows; ++n)
      log_sums[n] = -std::numeric_limits<double>::infinity();
    return;
  }
  kernels().exp_normalise(a, rows, m, cap, log_sums);
}

void exp_normalise_rows_passes(double* a, std::size_t rows, std::size_t m, const double* cap,
                               double* log_sums) {
  if (m == 0) {
    for (std::size_t n = 0; n < rows; ++n)
      log_sums[n] = -std::numeric_limits<double>::infinity();
    return;
  }
  exp_normalise_generic(a, rows, m, cap, log_sums);
}

}  // namespace radial
