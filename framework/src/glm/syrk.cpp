// Symmetric rank-k update for the Hessian blocks (see syrk.hpp).
#include "syrk.hpp"

#include <cblas.h>

namespace radial::glm::detail {

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c) {
  if (rows == 0 || n == 0) return;
  // Row-major C = A^T A: upper triangle by dsyrk, then mirrored.
  cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, int(n), int(rows), 1.0, a, int(n), 1.0, c,
              int(n));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) c[i * n + j] = c[j * n + i];
}

}  // namespace radial::glm::detail
