// Symmetric rank-k update for the Hessian blocks (see syrk.hpp).
#include "syrk.hpp"

#include <algorithm>
#include <string_view>

#include <cblas.h>

#include "radial/exec/cpu.hpp"
#include "radial/numerics/small_gemm.hpp"

namespace radial::glm::detail {

namespace {
constexpr std::size_t kPanel = 64;  // rows of C per panel of the triangular update
}

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c) {
  if (rows == 0 || n == 0) return;
  if (std::string_view(small_gemm_kernel()) == "avx512" && !blas_has_avx512_kernels()) {
    // The upper triangle by panels of rows of C, each C[r0:r1, r0:n] += A[:, r0:r1]^T A[:, r0:n]
    // through the AVX-512 kernel, when OpenBLAS has none of its own (about 7x the Prescott
    // dsyrk OpenBLAS then runs; the panel's lower-left corner is computed too, ~n^2 kPanel / 2
    // extra flops).
    for (std::size_t r0 = 0; r0 < n; r0 += kPanel) {
      const std::size_t r1 = std::min(n, r0 + kPanel);
      small_gemm(r1 - r0, n - r0, rows, a + r0, 1, n, a + r0, n, c + r0 * n + r0, n, true);
    }
  } else {
    // Row-major C = A^T A: upper triangle by dsyrk.
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, int(n), int(rows), 1.0, a, int(n), 1.0,
                c, int(n));
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) c[i * n + j] = c[j * n + i];
}

}  // namespace radial::glm::detail
