#pragma once
// C += A^T A for row-major A (rows x n) into the upper and lower triangles of row-major C
// (n x n), by BLAS dsyrk: n (n + 1) rows flops instead of gemm's 2 n^2 rows. Kept in its own
// translation unit because <cblas.h> clashes with xtensor-blas's declarations (DESIGN.md).

#include <cstddef>

namespace radial::glm::detail {

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c);

}  // namespace radial::glm::detail
