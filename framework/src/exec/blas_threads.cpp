// OpenBLAS's thread control, declared here rather than through <cblas.h>, whose declarations
// clash with the ones xtensor-blas bundles (both declare the CBLAS functions).
#include "radial/exec/blas_threads.hpp"

#include <algorithm>

extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
}

namespace radial {

void set_blas_threads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

int blas_threads() { return openblas_get_num_threads(); }

}  // namespace radial
