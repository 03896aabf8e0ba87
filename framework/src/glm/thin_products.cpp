// A W and A^T R for row blocks of the design (see thin_products.hpp).
#include "thin_products.hpp"

#include <algorithm>

#include <cblas.h>

#include "radial/exec/cpu.hpp"

namespace radial::glm::detail {

namespace {

// out = op(A) B for row-major A (rows x n), op(A) = A or A^T, B and out of k columns. Column
// by column through dgemv for k <= thin_product_columns, unless the portable path is forced:
// its rounding is BLAS gemm's, the one the example-predictions baseline was recorded with.
void product(bool transpose, const double* a, std::size_t rows, std::size_t n, const double* b,
             std::size_t k, double* out) {
  const std::size_t out_rows = transpose ? n : rows, inner = transpose ? rows : n;
  if (out_rows == 0 || k == 0) return;
  if (inner == 0) {
    std::fill(out, out + out_rows * k, 0.0);
    return;
  }
  const CBLAS_TRANSPOSE op = transpose ? CblasTrans : CblasNoTrans;
  if (k > thin_product_columns || portable_kernels_forced()) {
    cblas_dgemm(CblasRowMajor, op, CblasNoTrans, int(out_rows), int(k), int(inner), 1.0, a,
                int(n), b, int(k), 0.0, out, int(k));
    return;
  }
  for (std::size_t c = 0; c < k; ++c)  // column c of out = op(A) (column c of B)
    cblas_dgemv(CblasRowMajor, op, int(rows), int(n), 1.0, a, int(n), b + c, int(k), 0.0,
                out + c, int(k));
}

}  // namespace

void times_weights(const double* a, std::size_t rows, std::size_t n, const double* w,
                   std::size_t k, double* out) {
  product(false, a, rows, n, w, k, out);
}

void transpose_times(const double* a, std::size_t rows, std::size_t n, const double* r,
                     std::size_t k, double* out) {
  product(true, a, rows, n, r, k, out);
}

}  // namespace radial::glm::detail
