#pragma once
// C += A^T A for row-major A (rows x n) into the upper and lower triangles of row-major C
// (n x n): by the AVX-512 small_gemm kernel in row panels of the upper triangle when the CPU
// has it (radial/numerics/small_gemm.hpp), else by BLAS dsyrk. Kept in its own
// translation unit because <cblas.h> and xtensor-blas both declare the CBLAS functions,
// differently.

#include <cstddef>

namespace radial::glm::detail {

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c);

}  // namespace radial::glm::detail
