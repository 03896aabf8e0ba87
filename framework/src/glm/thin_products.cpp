// A W and A^T R for row blocks of the design (see thin_products.hpp).
#include "thin_products.hpp"

#include <algorithm>

#include <cblas.h>

#include "radial/numerics/cpu.hpp"

namespace radial::glm::detail {

namespace {
// Column by column, unless the portable path is forced: its rounding is BLAS gemm's, the one
// the example-predictions baseline was recorded with.
bool thin(std::size_t k) { return k <= thin_product_columns && !portable_kernels_forced(); }
}  // namespace

void times_weights(const double* a, std::size_t rows, std::size_t n, const double* w,
                   std::size_t k, double* out) {
  if (rows == 0 || k == 0) return;
  if (n == 0) {
    std::fill(out, out + rows * k, 0.0);
    return;
  }
  if (!thin(k)) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(rows), int(k), int(n), 1.0, a,
                int(n), w, int(k), 0.0, out, int(k));
    return;
  }
  for (std::size_t c = 0; c < k; ++c)  // column c of out = A (column c of W)
    cblas_dgemv(CblasRowMajor, CblasNoTrans, int(rows), int(n), 1.0, a, int(n), w + c, int(k),
                0.0, out + c, int(k));
}

void transpose_times(const double* a, std::size_t rows, std::size_t n, const double* r,
                     std::size_t k, double* out) {
  if (n == 0 || k == 0) return;
  if (rows == 0) {
    std::fill(out, out + n * k, 0.0);
    return;
  }
  if (!thin(k)) {
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(n), int(k), int(rows), 1.0, a,
                int(n), r, int(k), 0.0, out, int(k));
    return;
  }
  for (std::size_t c = 0; c < k; ++c)  // column c of out = A^T (column c of R)
    cblas_dgemv(CblasRowMajor, CblasTrans, int(rows), int(n), 1.0, a, int(n), r + c, int(k),
                0.0, out + c, int(k));
}

}  // namespace radial::glm::detail
