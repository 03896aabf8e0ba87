// Symmetric rank-k update for the Hessian blocks (see syrk.hpp).
#include "syrk.hpp"

#include "radial/numerics/small_gemm.hpp"

namespace radial::glm::detail {

void add_gram(const double* a, std::size_t rows, std::size_t n, double* c) {
  if (rows == 0 || n == 0) return;
  // The upper triangle by the AVX-512 kernel's panels when OpenBLAS has no AVX-512 kernels of
  // its own (about 7x the Prescott dsyrk OpenBLAS then runs), else by dsyrk.
  small_gemm_upper_gram(a, rows, n, n, c, n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < i; ++j) c[i * n + j] = c[j * n + i];
}

}  // namespace radial::glm::detail
