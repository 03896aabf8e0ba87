// Elementwise exp and log over contiguous doubles, vectorised.
//
// Measured on the development machine (x86-64 build without -march flags, 2^20 elements,
// ns per element): std::exp 4.6, xsimd SSE2 6.5, xsimd AVX2 3.2 (only with -mavx2), glibc
// libmvec AVX2 1.3 and AVX-512 1.0. A generic build can only use xsimd's SSE2 batches, which
// lose to glibc's FMA-dispatched scalar exp, so on x86-64 glibc the kernel is chosen at run time:
// libmvec's AVX-512 variants, or on AVX2 + FMA CPUs Radial's own inlined exp (exp_core_avx2:
// on an AMD EPYC without AVX-512, libmvec's AVX2 exp took 1.8 ns per element and this one 1.2)
// with libmvec's AVX2 log, otherwise xsimd batches of the width the framework was compiled for.
// libmvec is part of glibc's libm (libm.so links it as needed).
//
// xsimd 8 flushes subnormal results of exp and subnormal arguments of log (log(1e-320) comes out
// near -746.5 instead of -736.8), so an xsimd batch with any lane in those ranges, or with zero,
// negative or NaN arguments to log, is done by std::exp / std::log instead.
#include "radial/numerics/vector_math.hpp"

#include "radial/exec/cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <xsimd/xsimd.hpp>

// Not with clang (the fuzz build): it refuses vector arguments to the undecorated libmvec
// declarations ("changes the ABI"), so that build uses the xsimd batches.
#if defined(__x86_64__) && defined(__GLIBC__) && defined(__GNUC__) && !defined(__clang__)
#define RADIAL_HAVE_LIBMVEC 1
#include <immintrin.h>

#include "exp_kernels.hpp"
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
  const Batch low(exp_normal_min), high(709.0);  // xsimd's exp overflows early (709.7: inf)
  std::size_t i = 0;
  for (; i + width <= count; i += width) {
    const Batch x = Batch::load_unaligned(values + i);
    // !(low <= x <= high) is also true for NaN lanes (xsimd's exp casts them to integers).
    if (xsimd::any(!(x >= low)) || xsimd::any(!(x <= high))) {
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
extern "C" __m256d _ZGVdN4v_log(__m256d);
extern "C" __m512d _ZGVeN8v_exp(__m512d);
extern "C" __m512d _ZGVeN8v_log(__m512d);

using exp_kernels::exp_core_avx2;

// exp_in_place: exp_core_avx2, and std::exp for a vector with any lane outside its range (a
// subnormal or zero result, overflow, NaN).
__attribute__((target("avx2,fma"))) void exp_avx2(double* v, std::size_t n) {
  const __m256d low = _mm256_set1_pd(exp_normal_min), high = _mm256_set1_pd(709.0);
  // !(x >= low) is also true for NaN lanes.
  const auto outside = [&](__m256d x) __attribute__((target("avx2"))) {
    return _mm256_movemask_pd(_mm256_or_pd(_mm256_cmp_pd(x, low, _CMP_NGE_UQ),
                                           _mm256_cmp_pd(x, high, _CMP_GT_OQ)));
  };
  std::size_t i = 0;
  // Two vectors per step when both are in range: independent chains the core can overlap.
  for (; i + 8 <= n; i += 8) {
    const __m256d x0 = _mm256_loadu_pd(v + i), x1 = _mm256_loadu_pd(v + i + 4);
    const int out0 = outside(x0), out1 = outside(x1);
    if (!(out0 | out1)) {
      const __m256d e0 = exp_core_avx2(x0), e1 = exp_core_avx2(x1);
      _mm256_storeu_pd(v + i, e0);
      _mm256_storeu_pd(v + i + 4, e1);
      continue;
    }
    if (out0) for (std::size_t k = 0; k < 4; ++k) v[i + k] = std::exp(v[i + k]);
    else _mm256_storeu_pd(v + i, exp_core_avx2(x0));
    if (out1) for (std::size_t k = 4; k < 8; ++k) v[i + k] = std::exp(v[i + k]);
    else _mm256_storeu_pd(v + i + 4, exp_core_avx2(x1));
  }
  for (; i + 4 <= n; i += 4) {
    const __m256d x = _mm256_loadu_pd(v + i);
    if (outside(x)) {
      for (std::size_t k = 0; k < 4; ++k) v[i + k] = std::exp(v[i + k]);
    } else {
      _mm256_storeu_pd(v + i, exp_core_avx2(x));
    }
  }
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

// Row n's b_j = min(l_j, cap_j) + w_j (cap, w optional), as the scalar kernel computes it.
inline double softmax_term(const double* l, const double* cap, const double* w, std::size_t j) {
  double b = cap ? std::min(l[j], cap[j]) : l[j];
  if (w) b += w[j];
  return b;
}

// exp_normalise_rows_from for any kernel: the terms and their maximum, vector exp of the row,
// sum and scale.
void exp_normalise_generic(double* a, std::size_t rows, std::size_t m, const double* l,
                           const double* cap, const double* const* w, double* log_sums) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  for (std::size_t n = 0; n < rows; ++n) {
    double* r = a + n * m;
    const double* ln = l + n * m;
    const double* wn = w ? w[n] : nullptr;
    double mx = minus_inf;
    for (std::size_t j = 0; j < m; ++j) {
      r[j] = softmax_term(ln, cap, wn, j);
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
// The terms b_j of lanes j.. (k: the lanes in the row; the others -inf).
__attribute__((target("avx512f"), always_inline)) inline __m512d term512(
    const double* l, const double* cap, const double* w, std::size_t j, __mmask8 k) {
  const __m512d low = _mm512_set1_pd(-std::numeric_limits<double>::infinity());
  __m512d v = _mm512_mask_loadu_pd(low, k, l + j);
  if (cap) {
    // min(l, cap) as std::min(l, cap) = cap < l ? cap : l.
    const __m512d c = _mm512_mask_loadu_pd(low, k, cap + j);
    v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(c, v, _CMP_LT_OQ), v, c);
  }
  if (w) v = _mm512_add_pd(v, _mm512_maskz_loadu_pd(k, w + j));
  return v;
}

// The same in AVX-512 registers, 8 values at a time (masked tail; lanes past m load -inf). The
// terms are formed twice (for the maximum, then for the exp) rather than stored between.
__attribute__((target("avx512f"))) void exp_normalise_avx512(double* a, std::size_t rows,
                                                             std::size_t m, const double* l,
                                                             const double* cap,
                                                             const double* const* w,
                                                             double* log_sums) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const __m512d low = _mm512_set1_pd(minus_inf);
  for (std::size_t n = 0; n < rows; ++n) {
    double* r = a + n * m;
    const double* ln = l + n * m;
    const double* wn = w ? w[n] : nullptr;
    __m512d mx = low;
    for (std::size_t j = 0; j < m; j += 8) {
      const __mmask8 k = m - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (m - j)) - 1u);
      const __m512d v = term512(ln, cap, wn, j, k);
      mx = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(mx, v, _CMP_LT_OQ), mx, v);  // max
    }
    alignas(64) double lanes[8];
    _mm512_store_pd(lanes, mx);  // (GCC 12's _mm512_reduce_* warn spuriously)
    double top = lanes[0];
    for (int i = 1; i < 8; ++i) top = std::max(top, lanes[i]);
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
      const __m512d v = _mm512_sub_pd(term512(ln, cap, wn, j, k), shift);
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
    for (int i = 0; i < 8; ++i) s += lanes[i];
    log_sums[n] = top + std::log(s);
    const __m512d inv = _mm512_set1_pd(1.0 / s);
    for (std::size_t j = 0; j < m; j += 8) {
      const __mmask8 k = m - j >= 8 ? __mmask8(0xff) : __mmask8((1u << (m - j)) - 1u);
      _mm512_mask_storeu_pd(r + j, k, _mm512_mul_pd(_mm512_maskz_loadu_pd(k, r + j), inv));
    }
  }
}

// The terms b_j of lanes j..j+3; past the row's end (not `whole`: the lanes of tail_mask
// only) -inf, since masked loads give 0 and the blend puts -inf there.
__attribute__((target("avx2,fma"), always_inline)) inline __m256d term256(
    const double* l, const double* cap, const double* w, std::size_t j, bool whole,
    __m256i tail_mask) {
  const __m256d low = _mm256_set1_pd(-std::numeric_limits<double>::infinity());
  const __m256d lanes = _mm256_castsi256_pd(tail_mask);
  __m256d v = whole ? _mm256_loadu_pd(l + j)
                    : _mm256_blendv_pd(low, _mm256_maskload_pd(l + j, tail_mask), lanes);
  if (cap) {
    const __m256d c =
        whole ? _mm256_loadu_pd(cap + j)
              : _mm256_blendv_pd(low, _mm256_maskload_pd(cap + j, tail_mask), lanes);
    v = _mm256_blendv_pd(v, c, _mm256_cmp_pd(c, v, _CMP_LT_OQ));  // std::min(l, cap)
  }
  if (w)
    v = _mm256_add_pd(v, whole ? _mm256_loadu_pd(w + j) : _mm256_maskload_pd(w + j, tail_mask));
  return v;
}

// exp(v - shift); as in the AVX-512 kernel, lanes whose exp would be subnormal or 0 are 0.
__attribute__((target("avx2,fma"), always_inline)) inline __m256d shifted_exp256(
    __m256d term, __m256d shift, __m256d normal, __m256d zero) {
  const __m256d v = _mm256_sub_pd(term, shift);
  const __m256d tiny = _mm256_cmp_pd(v, normal, _CMP_LT_OQ);
  return _mm256_andnot_pd(tiny, exp_core_avx2(_mm256_blendv_pd(v, zero, tiny)));
}

// The same in AVX2 registers, 4 values at a time; the tail through masked loads and stores
// (lanes past m are -inf). For CPUs without AVX-512 (AMD before Zen 4), where the separate
// passes cost as much as the exp itself.
__attribute__((target("avx2,fma"))) void exp_normalise_avx2(double* a, std::size_t rows,
                                                            std::size_t m, const double* l,
                                                            const double* cap,
                                                            const double* const* w,
                                                            double* log_sums) {
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const __m256d low = _mm256_set1_pd(minus_inf);
  const std::size_t tail = m % 4;
  const __m256i tail_mask = _mm256_setr_epi64x(tail > 0 ? -1 : 0, tail > 1 ? -1 : 0,
                                               tail > 2 ? -1 : 0, 0);
  for (std::size_t n = 0; n < rows; ++n) {
    double* r = a + n * m;
    const double* ln = l + n * m;
    const double* wn = w ? w[n] : nullptr;
    // std::max(mx, v) = mx < v ? v : mx is max_pd(v, mx) (v > mx ? v : mx), NaN lanes of v
    // included; two chains, whose maximum is the same (mx is never NaN).
    __m256d mx = low, mx2 = low;
    std::size_t j = 0;
    for (; j + 8 <= m; j += 8) {
      mx = _mm256_max_pd(term256(ln, cap, wn, j, true, tail_mask), mx);
      mx2 = _mm256_max_pd(term256(ln, cap, wn, j + 4, true, tail_mask), mx2);
    }
    for (; j < m; j += 4) mx = _mm256_max_pd(term256(ln, cap, wn, j, m - j >= 4, tail_mask), mx);
    mx = _mm256_max_pd(mx2, mx);
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, mx);
    double top = lanes[0];
    for (int i = 1; i < 4; ++i) top = std::max(top, lanes[i]);
    if (top == minus_inf) {
      std::fill(r, r + m, 0.0);
      log_sums[n] = minus_inf;
      continue;
    }
    const __m256d shift = _mm256_set1_pd(top), normal = _mm256_set1_pd(exp_normal_min),
                  zero = _mm256_setzero_pd();
    __m256d sum = _mm256_setzero_pd();
    // Two vectors per step: their exps are independent chains the core can overlap; the sum
    // takes them in order.
    std::size_t j2 = 0;
    for (; j2 + 8 <= m; j2 += 8) {
      const __m256d e0 =
          shifted_exp256(term256(ln, cap, wn, j2, true, tail_mask), shift, normal, zero);
      const __m256d e1 =
          shifted_exp256(term256(ln, cap, wn, j2 + 4, true, tail_mask), shift, normal, zero);
      _mm256_storeu_pd(r + j2, e0);
      _mm256_storeu_pd(r + j2 + 4, e1);
      sum = _mm256_add_pd(_mm256_add_pd(sum, e0), e1);
    }
    for (; j2 < m; j2 += 4) {
      const bool whole = m - j2 >= 4;
      const __m256d e =
          shifted_exp256(term256(ln, cap, wn, j2, whole, tail_mask), shift, normal, zero);
      if (whole) _mm256_storeu_pd(r + j2, e);
      else _mm256_maskstore_pd(r + j2, tail_mask, e);
      sum = _mm256_add_pd(sum, e);
    }
    _mm256_store_pd(lanes, sum);
    const double s = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    log_sums[n] = top + std::log(s);
    const __m256d inv = _mm256_set1_pd(1.0 / s);
    j = 0;
    for (; j + 4 <= m; j += 4) _mm256_storeu_pd(r + j, _mm256_mul_pd(_mm256_loadu_pd(r + j), inv));
    if (tail)
      _mm256_maskstore_pd(r + j, tail_mask,
                          _mm256_mul_pd(_mm256_maskload_pd(r + j, tail_mask), inv));
  }
}
#endif

using ExpNormalise = void (*)(double*, std::size_t, std::size_t, const double*, const double*,
                              const double* const*, double*);

struct Kernels {
  void (*exp)(double*, std::size_t);
  void (*log)(double*, std::size_t);
  const char* name;
  ExpNormalise exp_normalise = exp_normalise_generic;
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
    return {exp_avx2, log_avx2, "avx2-fma", exp_normalise_avx2};
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

void exp_normalise_rows_from(double* a, std::size_t rows, std::size_t m, const double* l,
                             const double* cap, const double* const* row_terms,
                             double* log_sums) {
  if (m == 0) {
    for (std::size_t n = 0; n < rows; ++n)
      log_sums[n] = -std::numeric_limits<double>::infinity();
    return;
  }
  kernels().exp_normalise(a, rows, m, l, cap, row_terms, log_sums);
}

void exp_normalise_rows(double* a, std::size_t rows, std::size_t m, const double* cap,
                        double* log_sums) {
  exp_normalise_rows_from(a, rows, m, a, cap, nullptr, log_sums);
}

std::vector<ExpNormaliseKernel> exp_normalise_kernels() {
  std::vector<ExpNormaliseKernel> out{{"passes", exp_normalise_generic}};
#ifdef RADIAL_HAVE_LIBMVEC
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    out.push_back({"avx2", exp_normalise_avx2});
  if (__builtin_cpu_supports("avx512f")) out.push_back({"avx512", exp_normalise_avx512});
#endif
  return out;
}

}  // namespace radial
