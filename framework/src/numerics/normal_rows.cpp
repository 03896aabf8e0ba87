// The row kernels of normal_rows.hpp. The AVX2 and AVX-512 kernels take R rows at a time: their
// k dot products with X share each load of X, and Q is read and written once per group instead
// of once per row (per row, X and Q are twice the row's bytes for k = 2, and at M = 10^4 they
// live in L2).
#include "radial/numerics/normal_rows.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "radial/exec/cpu.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define RADIAL_NORMAL_ROWS_X86 1
// The AVX-512 kernel's tails are masked loads past the end of a row; not in the clang
// (sanitizer) build, whose checks would see them as reads out of bounds.
#include <immintrin.h>
#if !defined(__clang__)
#define RADIAL_NORMAL_ROWS_AVX512 1
// GCC 12 warns that _mm512_reduce_add_pd reads the undefined pass-through operand of its
// extract (_mm256_undefined_pd); it does not.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace radial {

namespace {

template <class T>
void rows_portable(const T* block, std::size_t rows, std::size_t p, const double* xt,
                   std::size_t k, double* qt) {
  double u[normal_rows_max_outputs];
  for (std::size_t i = 0; i < rows; ++i) {
    const T* phi = block + i * p;
    for (std::size_t c = 0; c < k; ++c) {
      double s = 0;
      for (std::size_t j = 0; j < p; ++j) s += double(phi[j]) * xt[c * p + j];
      u[c] = s;
    }
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t j = 0; j < p; ++j) qt[c * p + j] += u[c] * double(phi[j]);
  }
}

#ifdef RADIAL_NORMAL_ROWS_X86
// The AVX2 kernel: groups of R rows, X and Q read and written once per group. R beyond what the
// 16 vector registers hold (R + R k accumulators) still pays: Q's and X's traffic, not the
// spills, bounds a pass. On a 2-core AMD EPYC without AVX-512, 46,400 x 4,090 (shuttle's
// design), a pass took 0.130 s for k = 3 and 0.302 s for k = 7 one row at a time, 0.070 and
// 0.140 s in groups of 6 and 4; a variant swept in chunks of columns (the AVX-512 kernel's,
// which reads the block twice) was slower at every M up to 2 x 10^4. The columns past the last
// whole vector (p mod 4) are summed after the vector body.
constexpr int avx2_group(int k) { return k <= 2 ? 8 : k <= 4 ? 6 : 4; }

// Four of a row's values as doubles: a single-precision block is widened as it is read, so
// its products are those of the widened block, bit for bit.
__attribute__((target("avx2,fma"), always_inline)) inline __m256d load4(const double* v) {
  return _mm256_loadu_pd(v);
}
__attribute__((target("avx2,fma"), always_inline)) inline __m256d load4(const float* v) {
  return _mm256_cvtps_pd(_mm_loadu_ps(v));
}

// lanes[r][c] (4 doubles each) = phi_r[0..body) * xt_c[0..body), whole vectors.
template <int K, int R, class T>
__attribute__((target("avx2,fma"))) void dots_avx2(const T* phi, std::size_t p,
                                                    std::size_t body, const double* xt,
                                                    double* lanes) {
  __m256d acc[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) acc[r][c] = _mm256_setzero_pd();
  for (std::size_t j = 0; j < body; j += 4) {
    __m256d v[R];
    for (int r = 0; r < R; ++r) v[r] = load4(phi + r * p + j);
    for (int c = 0; c < K; ++c) {
      const __m256d x = _mm256_loadu_pd(xt + c * p + j);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_pd(v[r], x, acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) _mm256_storeu_pd(lanes + (r * K + c) * 4, acc[r][c]);
}

// qt_c[0..body) += sum_r u[r][c] phi_r[0..body), rows in order, whole vectors.
template <int K, int R, class T>
__attribute__((target("avx2,fma"))) void update_avx2(const T* phi, std::size_t p,
                                                      std::size_t body, double* qt,
                                                      const double* u) {
  __m256d scale[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) scale[r][c] = _mm256_set1_pd(u[r * K + c]);
  for (std::size_t j = 0; j < body; j += 4) {
    __m256d v[R];
    for (int r = 0; r < R; ++r) v[r] = load4(phi + r * p + j);
    for (int c = 0; c < K; ++c) {
      double* q = qt + c * p + j;
      __m256d s = _mm256_loadu_pd(q);
      for (int r = 0; r < R; ++r) s = _mm256_fmadd_pd(scale[r][c], v[r], s);
      _mm256_storeu_pd(q, s);
    }
  }
}

// u[c] of one row from its lanes and the columns past the body.
template <int K, class T>
void finish_dots(const T* phi, std::size_t p, std::size_t body, const double* xt,
                 const double* lanes, double* u) {
  for (int c = 0; c < K; ++c) {
    const double* lane = lanes + c * 4;
    double s = (lane[0] + lane[1]) + (lane[2] + lane[3]);
    for (std::size_t j = body; j < p; ++j) s += double(phi[j]) * xt[c * p + j];
    u[c] = s;
  }
}

// Q's columns past the body += u[c] phi_j for one row.
template <int K, class T>
void tail_update(const T* phi, std::size_t p, std::size_t body, double* qt,
                 const double* u) {
  for (int c = 0; c < K; ++c)
    for (std::size_t j = body; j < p; ++j) qt[c * p + j] += u[c] * double(phi[j]);
}

// A group of G rows: its dot products, then its update, while its rows are in cache.
template <int K, int G, class T>
void group_avx2(const T* phi, std::size_t p, const double* xt, double* qt) {
  const std::size_t body = p - p % 4;
  double lanes[G * K * 4], u[G * K];
  dots_avx2<K, G>(phi, p, body, xt, lanes);
  for (int r = 0; r < G; ++r)
    finish_dots<K>(phi + r * p, p, body, xt, lanes + r * K * 4, u + r * K);
  update_avx2<K, G>(phi, p, body, qt, u);
  for (int r = 0; r < G; ++r) tail_update<K>(phi + r * p, p, body, qt, u + r * K);
}

template <int K, class T>
void rows_avx2_grouped(const T* block, std::size_t rows, std::size_t p, const double* xt,
                       double* qt) {
  constexpr int R = avx2_group(K);
  std::size_t i = 0;
  for (; i + R <= rows; i += R) group_avx2<K, R>(block + i * p, p, xt, qt);
  for (; i < rows; ++i) group_avx2<K, 1>(block + i * p, p, xt, qt);
}

// run(std::integral_constant<int, k>()) for k = 1 .. normal_rows_max_outputs.
template <class Run>
void with_outputs(std::size_t k, const Run& run) {
  switch (k) {
    case 1: return run(std::integral_constant<int, 1>());
    case 2: return run(std::integral_constant<int, 2>());
    case 3: return run(std::integral_constant<int, 3>());
    case 4: return run(std::integral_constant<int, 4>());
    case 5: return run(std::integral_constant<int, 5>());
    case 6: return run(std::integral_constant<int, 6>());
    case 7: return run(std::integral_constant<int, 7>());
    default: return run(std::integral_constant<int, 8>());
  }
}

template <class T>
void rows_avx2(const T* block, std::size_t rows, std::size_t p, const double* xt,
               std::size_t k, double* qt) {
  with_outputs(k, [&](auto outputs) {
    rows_avx2_grouped<decltype(outputs)::value, T>(block, rows, p, xt, qt);
  });
}

#ifdef RADIAL_NORMAL_ROWS_AVX512
// Eight of a row's values as doubles (lanes outside mask 0), widened as load4's.
__attribute__((target("avx512f"), always_inline)) inline __m512d load8(__mmask8 mask,
                                                                      const double* v) {
  return _mm512_maskz_loadu_pd(mask, v);
}
__attribute__((target("avx512f"), always_inline)) inline __m512d load8(__mmask8 mask,
                                                                      const float* v) {
  return _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_maskz_loadu_ps(__mmask16(mask), v)));
}

// acc[r][c] += phi_r[j..j+8) * xt_c[j..j+8) (lanes outside mask are 0).
template <int K, int R, class T>
__attribute__((target("avx512f"), always_inline)) inline void dots_avx512(
    const T* phi, std::size_t p, const double* xt, std::size_t j, __mmask8 mask,
    __m512d (&acc)[R][K]) {
  __m512d x[K];
  for (int c = 0; c < K; ++c) x[c] = _mm512_maskz_loadu_pd(mask, xt + c * p + j);
  for (int r = 0; r < R; ++r) {
    const __m512d v = load8(mask, phi + r * p + j);
    for (int c = 0; c < K; ++c) acc[r][c] = _mm512_fmadd_pd(v, x[c], acc[r][c]);
  }
}

// qt_c[j..j+8) += sum_r u[r][c] phi_r[j..j+8), rows in order (lanes outside mask untouched).
template <int K, int R, class T>
__attribute__((target("avx512f"), always_inline)) inline void update_avx512(
    const T* phi, std::size_t p, double* qt, std::size_t j, __mmask8 mask,
    const __m512d (&u)[R][K]) {
  __m512d v[R];
  for (int r = 0; r < R; ++r) v[r] = load8(mask, phi + r * p + j);
  for (int c = 0; c < K; ++c) {
    double* q = qt + c * p + j;
    __m512d s = _mm512_maskz_loadu_pd(mask, q);
    for (int r = 0; r < R; ++r) s = _mm512_fmadd_pd(u[r][c], v[r], s);
    _mm512_mask_storeu_pd(q, mask, s);
  }
}

// The groups' dot products for columns [j0, j1) (whole vectors, or the masked tail), their
// lane sums kept in lanes (R x K vectors of 8 per group) between column chunks.
template <int K, int R, class T>
__attribute__((target("avx512f"))) void chunk_dots(const T* phi, std::size_t p,
                                                   const double* xt, std::size_t j0,
                                                   std::size_t j1, __mmask8 tail,
                                                   double* lanes) {
  __m512d acc[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) acc[r][c] = _mm512_loadu_pd(lanes + (r * K + c) * 8);
  for (std::size_t j = j0; j < j1; j += 8) dots_avx512<K, R, T>(phi, p, xt, j, 0xff, acc);
  if (tail) dots_avx512<K, R, T>(phi, p, xt, j1, tail, acc);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) _mm512_storeu_pd(lanes + (r * K + c) * 8, acc[r][c]);
}

template <int K, int R, class T>
__attribute__((target("avx512f"))) void chunk_update(const T* phi, std::size_t p,
                                                     double* qt, std::size_t j0, std::size_t j1,
                                                     __mmask8 tail, const double* u) {
  __m512d scale[R][K];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < K; ++c) scale[r][c] = _mm512_set1_pd(u[r * K + c]);
  for (std::size_t j = j0; j < j1; j += 8) update_avx512<K, R, T>(phi, p, qt, j, 0xff, scale);
  if (tail) update_avx512<K, R, T>(phi, p, qt, j1, tail, scale);
}

// u = Phi_g X for a group of G rows, then Q += Phi_g^T u: the group's rows read twice while
// they are in cache (the tail past the last whole vector masked).
template <int K, int G, class T>
__attribute__((target("avx512f"))) void group_avx512(const T* phi, std::size_t p,
                                                     const double* xt, double* qt) {
  const std::size_t body = p - p % 8;
  const __mmask8 tail = __mmask8((1u << (p % 8)) - 1);
  double lanes[G * K * 8] = {}, u[G * K];
  chunk_dots<K, G, T>(phi, p, xt, 0, body, tail, lanes);
  for (int v = 0; v < G * K; ++v) u[v] = _mm512_reduce_add_pd(_mm512_loadu_pd(lanes + v * 8));
  chunk_update<K, G, T>(phi, p, qt, 0, body, tail, u);
}

template <int K, class T>
__attribute__((target("avx512f"))) void rows_avx512_grouped(const T* block,
                                                            std::size_t rows, std::size_t p,
                                                            const double* xt, double* qt) {
  constexpr int R = K <= 4 ? 4 : 2;
  std::size_t i = 0;
  for (; i + R <= rows; i += R) group_avx512<K, R, T>(block + i * p, p, xt, qt);
  for (; i < rows; ++i) group_avx512<K, 1, T>(block + i * p, p, xt, qt);
}

// The same groups, sums and order as rows_avx512_grouped (so the same bits), with the block
// swept in chunks of columns: all groups' dot products over a chunk, then, once every u is
// known, all groups' updates over a chunk. A group's rows, X and Q outgrow L2 at M = 2 x 10^4
// (4 rows and k = 2: 1.3 MB), where X and Q were read from L3 for every group; a chunk's X and
// Q stay in L1 over the block's groups.
template <int K, class T>
__attribute__((target("avx512f"))) void rows_avx512_chunked(const T* block,
                                                            std::size_t rows, std::size_t p,
                                                            const double* xt, double* qt) {
  constexpr int R = K <= 4 ? 4 : 2;
  constexpr std::size_t chunk = 512;  // columns: X's and Q's chunks of k x 4 KB
  const std::size_t body = p - p % 8;
  const __mmask8 tail = __mmask8((1u << (p % 8)) - 1);
  const std::size_t whole = rows - rows % R;
  std::vector<double> lanes(rows * K * 8, 0.0), u(rows * K);
  for (std::size_t j0 = 0; j0 < p; j0 += chunk) {
    const std::size_t j1 = std::min(body, j0 + chunk);
    const __mmask8 last = j0 + chunk >= p ? tail : 0;
    for (std::size_t i = 0; i < whole; i += R)
      chunk_dots<K, R, T>(block + i * p, p, xt, j0, j1, last, lanes.data() + i * K * 8);
    for (std::size_t i = whole; i < rows; ++i)
      chunk_dots<K, 1, T>(block + i * p, p, xt, j0, j1, last, lanes.data() + i * K * 8);
  }
  for (std::size_t i = 0; i < rows * K; ++i)
    u[i] = _mm512_reduce_add_pd(_mm512_loadu_pd(lanes.data() + i * 8));
  for (std::size_t j0 = 0; j0 < p; j0 += chunk) {
    const std::size_t j1 = std::min(body, j0 + chunk);
    const __mmask8 last = j0 + chunk >= p ? tail : 0;
    for (std::size_t i = 0; i < whole; i += R)
      chunk_update<K, R, T>(block + i * p, p, qt, j0, j1, last, u.data() + i * K);
    for (std::size_t i = whole; i < rows; ++i)
      chunk_update<K, 1, T>(block + i * p, p, qt, j0, j1, last, u.data() + i * K);
  }
}

// Grouped while a group's rows, X and Q fit in half of a 1 MB L2, else chunked.
template <int K, class T>
void rows_avx512_k(const T* block, std::size_t rows, std::size_t p, const double* xt,
                   double* qt) {
  constexpr std::size_t R = K <= 4 ? 4 : 2;
  if ((R + 2 * K) * p * sizeof(double) <= (std::size_t(512) << 10))
    rows_avx512_grouped<K, T>(block, rows, p, xt, qt);
  else
    rows_avx512_chunked<K, T>(block, rows, p, xt, qt);
}

template <class T>
void rows_avx512(const T* block, std::size_t rows, std::size_t p, const double* xt,
                 std::size_t k, double* qt) {
  with_outputs(k, [&](auto outputs) {
    rows_avx512_k<decltype(outputs)::value, T>(block, rows, p, xt, qt);
  });
}

// Always chunked: tests compare its bits with the grouped kernel's.
template <class T>
void rows_avx512_chunked_all(const T* block, std::size_t rows, std::size_t p,
                             const double* xt, std::size_t k, double* qt) {
  with_outputs(k, [&](auto outputs) {
    rows_avx512_chunked<decltype(outputs)::value, T>(block, rows, p, xt, qt);
  });
}
#endif  // RADIAL_NORMAL_ROWS_AVX512
#endif

}  // namespace

std::vector<NormalRowsKernel> normal_rows_kernels() {
  std::vector<NormalRowsKernel> out;
#ifdef RADIAL_NORMAL_ROWS_X86
#ifdef RADIAL_NORMAL_ROWS_AVX512
  if (use_avx512_kernels()) {
    out.push_back({"avx512", rows_avx512<double>, rows_avx512<float>});
    out.push_back({"avx512-chunked", rows_avx512_chunked_all<double>,
                   rows_avx512_chunked_all<float>});
  }
#endif
  if (use_avx2_kernels()) out.push_back({"avx2", rows_avx2<double>, rows_avx2<float>});
#endif
  out.push_back({"portable", rows_portable<double>, rows_portable<float>});
  return out;
}

void normal_rows(const double* block, std::size_t rows, std::size_t p, const double* xt,
                 std::size_t k, double* qt) {
  static const NormalRowsKernel best = normal_rows_kernels().front();
  best.run(block, rows, p, xt, k, qt);
}

void normal_rows(const float* block, std::size_t rows, std::size_t p, const double* xt,
                 std::size_t k, double* qt) {
  static const NormalRowsKernel best = normal_rows_kernels().front();
  best.run_single(block, rows, p, xt, k, qt);
}

}  // namespace radial
