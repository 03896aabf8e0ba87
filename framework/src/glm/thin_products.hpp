#pragma once
// Products of a row block of the design with the few columns of the outputs: A W (the
// activations) and A^T R (the gradient). With one to three outputs BLAS gemm spends more time
// packing the block than multiplying (OpenBLAS 0.3.21 has no gemm-to-gemv forwarding), so
// those go column by column through dgemv (not under RADIAL_PORTABLE_KERNELS, whose path keeps
// gemm's rounding: radial/exec/cpu.hpp). Kept in its own translation unit because <cblas.h>
// and xtensor-blas both declare the CBLAS functions, differently.

#include <cstddef>

namespace radial::glm::detail {

// Up to this many output columns the products run as one dgemv per column.
constexpr std::size_t thin_product_columns = 3;

// out (rows x k) = A W for row-major A (rows x n), W (n x k) and out.
void times_weights(const double* a, std::size_t rows, std::size_t n, const double* w,
                   std::size_t k, double* out);

// out (n x k) = A^T R for row-major A (rows x n), R (rows x k) and out.
void transpose_times(const double* a, std::size_t rows, std::size_t n, const double* r,
                     std::size_t k, double* out);

}  // namespace radial::glm::detail
