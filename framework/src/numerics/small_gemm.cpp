// Skinny GEMM for the mixture E-step: an AVX-512 register-blocked kernel chosen at run time,
// cblas_dgemm otherwise (see small_gemm.hpp for why). No xtensor-blas here: its bundled
// declarations clash with <cblas.h> (both declare the CBLAS functions).
#include "radial/numerics/small_gemm.hpp"

#include "radial/exec/cpu.hpp"

#include <cblas.h>

#include <algorithm>
#include <cstdint>

#if defined(__x86_64__) && defined(__GNUC__)
#define RADIAL_SMALL_GEMM_AVX512 1
#include <immintrin.h>
#endif

namespace radial {
namespace {

void gemm_blas(std::size_t m, std::size_t n, std::size_t k, const double* a, std::size_t a_row,
               std::size_t a_col, const double* b, std::size_t ldb, double* c, std::size_t ldc,
               bool accumulate) {
  if (m == 0 || n == 0) return;
  const double beta = accumulate ? 1.0 : 0.0;
  if (k == 0) {
    if (!accumulate)
      for (std::size_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0);
    return;
  }
  const bool transposed = a_col != 1;
  const CBLAS_TRANSPOSE ta = transposed ? CblasTrans : CblasNoTrans;
  const std::size_t lda = transposed ? std::max(a_col, m) : std::max(a_row, k);
  cblas_dgemm(CblasRowMajor, ta, CblasNoTrans, int(m), int(n), int(k), 1.0, a, int(lda), b,
              int(ldb), beta, c, int(ldc));
}

#ifdef RADIAL_SMALL_GEMM_AVX512

constexpr std::size_t tile_rows = 6;     // rows of C per tile
constexpr std::size_t tile_cols = 32;    // columns of C per tile: 4 zmm registers
constexpr std::size_t k_chunk = 64;

// One tile of C: `rows` (<= 6) rows, up to 32 columns under the masks, summed over k in order.
// Accumulators are named variables (an array of them gets spilled every iteration); rows past
// `rows` repeat the last row's A and are not stored.
// Clamp: C = max(0, C) on the way out, stored to c and to c2 (the clamped squared distances
// and their copy for the basis map, in one store).
template <bool Full, bool Clamp>
__attribute__((target("avx512f"))) void tile(std::size_t rows, std::size_t k, const double* a,
                                             std::size_t a_row, std::size_t a_col,
                                             const double* b, std::size_t ldb, double* c,
                                             std::size_t ldc, const __mmask8* mask,
                                             bool accumulate, double* c2) {
  const __mmask8 m0 = mask[0], m1 = mask[1], m2 = mask[2], m3 = mask[3];
  const double* ap[6];
  for (std::size_t r = 0; r < 6; ++r) ap[r] = a + std::min(r, rows - 1) * a_row;
  const double *a0 = ap[0], *a1 = ap[1], *a2 = ap[2], *a3 = ap[3], *a4 = ap[4], *a5 = ap[5];
#define RADIAL_ACC(r)                                                                          \
  __m512d c##r##0 = _mm512_setzero_pd(), c##r##1 = _mm512_setzero_pd(),                       \
          c##r##2 = _mm512_setzero_pd(), c##r##3 = _mm512_setzero_pd();
  RADIAL_ACC(0) RADIAL_ACC(1) RADIAL_ACC(2) RADIAL_ACC(3) RADIAL_ACC(4) RADIAL_ACC(5)
#undef RADIAL_ACC
  for (std::size_t kk = 0; kk < k; ++kk) {
    const double* bk = b + kk * ldb;
    // Full: all 32 columns present, plain loads (masked ones measured ~5% slower).
    const __m512d b0 = Full ? _mm512_loadu_pd(bk) : _mm512_maskz_loadu_pd(m0, bk),
                  b1 = Full ? _mm512_loadu_pd(bk + 8) : _mm512_maskz_loadu_pd(m1, bk + 8),
                  b2 = Full ? _mm512_loadu_pd(bk + 16) : _mm512_maskz_loadu_pd(m2, bk + 16),
                  b3 = Full ? _mm512_loadu_pd(bk + 24) : _mm512_maskz_loadu_pd(m3, bk + 24);
    const std::size_t off = kk * a_col;
#define RADIAL_ROW(r)                                                                          \
  {                                                                                            \
    const __m512d av = _mm512_set1_pd(a##r[off]);                                              \
    c##r##0 = _mm512_fmadd_pd(av, b0, c##r##0);                                                \
    c##r##1 = _mm512_fmadd_pd(av, b1, c##r##1);                                                \
    c##r##2 = _mm512_fmadd_pd(av, b2, c##r##2);                                                \
    c##r##3 = _mm512_fmadd_pd(av, b3, c##r##3);                                                \
  }
    RADIAL_ROW(0) RADIAL_ROW(1) RADIAL_ROW(2) RADIAL_ROW(3) RADIAL_ROW(4) RADIAL_ROW(5)
#undef RADIAL_ROW
  }
#define RADIAL_STORE(r)                                                                        \
  if (r < rows) {                                                                              \
    double* cr = c + r * ldc;                                                                  \
    if (accumulate) {                                                                          \
      c##r##0 = _mm512_add_pd(_mm512_maskz_loadu_pd(m0, cr), c##r##0);                         \
      c##r##1 = _mm512_add_pd(_mm512_maskz_loadu_pd(m1, cr + 8), c##r##1);                     \
      c##r##2 = _mm512_add_pd(_mm512_maskz_loadu_pd(m2, cr + 16), c##r##2);                    \
      c##r##3 = _mm512_add_pd(_mm512_maskz_loadu_pd(m3, cr + 24), c##r##3);                    \
    }                                                                                          \
    if (Clamp) {                                                                               \
      const __m512d zero = _mm512_setzero_pd();                                                \
      c##r##0 = _mm512_maskz_max_pd(0xff, c##r##0, zero);                                      \
      c##r##1 = _mm512_maskz_max_pd(0xff, c##r##1, zero);                                      \
      c##r##2 = _mm512_maskz_max_pd(0xff, c##r##2, zero);                                      \
      c##r##3 = _mm512_maskz_max_pd(0xff, c##r##3, zero);                                      \
      double* dr = c2 + r * ldc;                                                               \
      _mm512_mask_storeu_pd(dr, m0, c##r##0);                                                  \
      _mm512_mask_storeu_pd(dr + 8, m1, c##r##1);                                              \
      _mm512_mask_storeu_pd(dr + 16, m2, c##r##2);                                             \
      _mm512_mask_storeu_pd(dr + 24, m3, c##r##3);                                             \
    }                                                                                          \
    _mm512_mask_storeu_pd(cr, m0, c##r##0);                                                    \
    _mm512_mask_storeu_pd(cr + 8, m1, c##r##1);                                                \
    _mm512_mask_storeu_pd(cr + 16, m2, c##r##2);                                               \
    _mm512_mask_storeu_pd(cr + 24, m3, c##r##3);                                               \
  }
  RADIAL_STORE(0) RADIAL_STORE(1) RADIAL_STORE(2) RADIAL_STORE(3) RADIAL_STORE(4) RADIAL_STORE(5)
#undef RADIAL_STORE
}

__attribute__((target("avx512f"))) void gemm_avx512(std::size_t m, std::size_t n,
                                                     std::size_t k, const double* a,
                                                     std::size_t a_row, std::size_t a_col,
                                                     const double* b, std::size_t ldb, double* c,
                                                     std::size_t ldc, bool accumulate,
                                                     double* copy) {
  // k in chunks of k_chunk, so a chunk of B's 32-column stripe (16 KB) stays in L1 while
  // every row tile uses it (measured ~10% faster than one pass over k); chunk sums are added to
  // C in order.
  for (std::size_t kb = 0; kb < k || kb == 0; kb += k_chunk) {
    const std::size_t kn = std::min(k_chunk, k - kb);
    const bool add = accumulate || kb > 0;
    for (std::size_t col = 0; col < n; col += tile_cols) {
      const std::size_t width = std::min(tile_cols, n - col);
      __mmask8 mask[4];
      for (std::size_t v = 0; v < 4; ++v) {
        const std::size_t lanes = width > 8 * v ? std::min<std::size_t>(8, width - 8 * v) : 0;
        mask[v] = __mmask8((1u << lanes) - 1u);
      }
      const double* bc = b + kb * ldb + col;
      for (std::size_t row = 0; row < m; row += tile_rows) {
        const std::size_t rows = std::min(tile_rows, m - row);
        const double* ar = a + row * a_row + kb * a_col;
        double* cr = c + row * ldc + col;
        // The clamp and the copy on the last chunk of k only.
        double* dr = copy && kb + k_chunk >= k ? copy + row * ldc + col : nullptr;
        if (dr) {
          if (width == tile_cols)
            tile<true, true>(rows, kn, ar, a_row, a_col, bc, ldb, cr, ldc, mask, add, dr);
          else
            tile<false, true>(rows, kn, ar, a_row, a_col, bc, ldb, cr, ldc, mask, add, dr);
        } else if (width == tile_cols) {
          tile<true, false>(rows, kn, ar, a_row, a_col, bc, ldb, cr, ldc, mask, add, nullptr);
        } else {
          tile<false, false>(rows, kn, ar, a_row, a_col, bc, ldb, cr, ldc, mask, add, nullptr);
        }
      }
    }
  }
}

#endif

// BLAS, then the clamp and the copy in a pass of their own.
void gemm_blas_clamped(std::size_t m, std::size_t n, std::size_t k, const double* a,
                       std::size_t a_row, std::size_t a_col, const double* b, std::size_t ldb,
                       double* c, std::size_t ldc, bool accumulate, double* copy) {
  gemm_blas(m, n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
  if (!copy) return;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j)
      copy[i * ldc + j] = c[i * ldc + j] = std::max(0.0, c[i * ldc + j]);
}

using Kernel = void (*)(std::size_t, std::size_t, std::size_t, const double*, std::size_t,
                        std::size_t, const double*, std::size_t, double*, std::size_t, bool,
                        double*);
struct Chosen {
  Kernel kernel;
  const char* name;
};

Chosen choose() {
#ifdef RADIAL_SMALL_GEMM_AVX512
  if (use_avx512_kernels()) return {gemm_avx512, "avx512"};
#endif
  return {gemm_blas_clamped, "blas"};
}

const Chosen& chosen() {
  static const Chosen c = choose();
  return c;
}

}  // namespace

void small_gemm(std::size_t m, std::size_t n, std::size_t k, const double* a, std::size_t a_row,
                std::size_t a_col, const double* b, std::size_t ldb, double* c, std::size_t ldc,
                bool accumulate) {
  chosen().kernel(m, n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate, nullptr);
}

void small_gemm_clamped(std::size_t m, std::size_t n, std::size_t k, const double* a,
                        std::size_t a_row, std::size_t a_col, const double* b, std::size_t ldb,
                        double* c, double* copy, std::size_t ldc) {
  chosen().kernel(m, n, k, a, a_row, a_col, b, ldb, c, ldc, false, copy);
}

const char* small_gemm_kernel() { return chosen().name; }

bool small_gemm_beats_blas() {
  static const bool beats = chosen().kernel != gemm_blas_clamped && !blas_has_avx512_kernels();
  return beats;
}

void small_gemm_upper_gram(const double* a, std::size_t rows, std::size_t n, std::size_t lda,
                           double* c, std::size_t ldc) {
  if (rows == 0 || n == 0) return;
  if (!small_gemm_beats_blas()) {
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, int(n), int(rows), 1.0, a, int(lda), 1.0,
                c, int(ldc));
    return;
  }
  constexpr std::size_t panel = 64;
  for (std::size_t r0 = 0; r0 < n; r0 += panel) {
    const std::size_t r1 = std::min(n, r0 + panel);
    chosen().kernel(r1 - r0, n - r0, rows, a + r0, 1, lda, a + r0, lda, c + r0 * ldc + r0, ldc,
                    true, nullptr);
  }
}

void small_gemm_blas(std::size_t m, std::size_t n, std::size_t k, const double* a,
                     std::size_t a_row, std::size_t a_col, const double* b, std::size_t ldb,
                     double* c, std::size_t ldc, bool accumulate) {
  gemm_blas(m, n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
}

}  // namespace radial
