#pragma once
// C += A^T A for row-major A (rows x n) into the upper and lower triangles of row-major C
// (n x n): small_gemm_upper_gram (radial/numerics/small_gemm.hpp), then the lower triangle
// copied from the upper.

#include <cstddef>

namespace radial::glm::detail {

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c);

}  // namespace radial::glm::detail
