#pragma once
// Inlined vector exp cores, for loops that keep their operands in registers (a libmvec call
// would spill every register): n = round(x / ln 2), r = x - n ln 2 (Cody-Waite, two FMAs), exp(r)
// by its Taylor polynomial of degree 13 (truncation below 1e-17 for |r| <= ln 2 / 2; two Horner
// halves joined by r^7), times 2^n. Within 1 ulp of std::exp on their ranges (tests/numerics,
// "[vector-math]" and "[gaussian-rows]"). x86-64 with GCC only; include after <immintrin.h>.

namespace radial::exp_kernels {

inline constexpr double taylor[14] = {1.0,
                                      1.0,
                                      1.0 / 2,
                                      1.0 / 6,
                                      1.0 / 24,
                                      1.0 / 120,
                                      1.0 / 720,
                                      1.0 / 5040,
                                      1.0 / 40320,
                                      1.0 / 362880,
                                      1.0 / 3628800,
                                      1.0 / 39916800,
                                      1.0 / 479001600,
                                      1.0 / 6227020800.0};
inline constexpr double log2e = 1.4426950408889634;
inline constexpr double ln2_hi = 6.93147180369123816490e-01;
inline constexpr double ln2_lo = 1.90821492927058770002e-10;

// x in [log(DBL_MIN), 709] and NaN (NaN out); 2^n made in the exponent bits, so a result below
// DBL_MIN is wrong: callers send such lanes to std::exp. About 1.5x libmvec's AVX2 exp on an
// AMD EPYC (Zen 3).
__attribute__((target("avx2,fma"), always_inline)) inline __m256d exp_core_avx2(__m256d x) {
  const __m256d n = _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(log2e)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(ln2_hi), x);
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(ln2_lo), r);
  __m256d hi = _mm256_set1_pd(taylor[13]);
  for (int k = 12; k >= 7; --k) hi = _mm256_fmadd_pd(hi, r, _mm256_set1_pd(taylor[k]));
  __m256d lo = _mm256_set1_pd(taylor[6]);
  for (int k = 5; k >= 0; --k) lo = _mm256_fmadd_pd(lo, r, _mm256_set1_pd(taylor[k]));
  const __m256d r2 = _mm256_mul_pd(r, r);
  const __m256d r7 = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(r2, r2), r2), r);
  const __m256d p = _mm256_fmadd_pd(hi, r7, lo);
  const __m256i two_n = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)), _mm256_set1_epi64x(1023)),
      52);
  return _mm256_mul_pd(p, _mm256_castsi256_pd(two_n));
}

// x <= 709, any finite value: 2^n applied by scalef, which rounds once into the subnormals and
// to 0 below them, so no lane needs std::exp. x is raised to -746 first (exp(-746) rounds to 0),
// which keeps r small for arguments far below.
__attribute__((target("avx512f"), always_inline)) inline __m512d exp_core_avx512(__m512d x) {
  x = _mm512_max_pd(x, _mm512_set1_pd(-746.0));
  const __m512d n = _mm512_roundscale_pd(_mm512_mul_pd(x, _mm512_set1_pd(log2e)),
                                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512d r = _mm512_fnmadd_pd(n, _mm512_set1_pd(ln2_hi), x);
  r = _mm512_fnmadd_pd(n, _mm512_set1_pd(ln2_lo), r);
  __m512d hi = _mm512_set1_pd(taylor[13]);
  for (int k = 12; k >= 7; --k) hi = _mm512_fmadd_pd(hi, r, _mm512_set1_pd(taylor[k]));
  __m512d lo = _mm512_set1_pd(taylor[6]);
  for (int k = 5; k >= 0; --k) lo = _mm512_fmadd_pd(lo, r, _mm512_set1_pd(taylor[k]));
  const __m512d r2 = _mm512_mul_pd(r, r);
  const __m512d r7 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(r2, r2), r2), r);
  return _mm512_scalef_pd(_mm512_fmadd_pd(hi, r7, lo), n);
}

}  // namespace radial::exp_kernels

namespace radial::exp_kernels {

// Single precision, for the design's single-precision passes: the same scheme with Cephes's
// split of ln 2 and the Taylor polynomial of degree 7 (truncation 5e-9 for |r| <= ln 2 / 2;
// within 2 ulp of expf). x >= -104 is enforced (scalef rounds below FLT_MIN as the double core).
inline constexpr float ln2_hi_f = 0.693359375f;
inline constexpr float ln2_lo_f = -2.12194440e-4f;

__attribute__((target("avx512f"), always_inline)) inline __m512 exp_core_avx512_ps(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(float(log2e))),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_hi_f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(ln2_lo_f), r);
  __m512 p = _mm512_set1_ps(float(taylor[7]));
  for (int k = 6; k >= 0; --k) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(float(taylor[k])));
  return _mm512_scalef_ps(p, n);
}

// x in [log(FLT_MIN), 88] (2^n made in the exponent bits); callers flush lanes below to 0.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 exp_core_avx2_ps(__m256 x) {
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(float(log2e))),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(ln2_hi_f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(ln2_lo_f), r);
  __m256 p = _mm256_set1_ps(float(taylor[7]));
  for (int k = 6; k >= 0; --k) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(float(taylor[k])));
  const __m256i two_n = _mm256_slli_epi32(
      _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(two_n));
}

}  // namespace radial::exp_kernels
