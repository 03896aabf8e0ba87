#pragma once
// The BLAS thread count. Radial parallelises over row blocks itself and keeps BLAS
// single-threaded inside parallel regions (T workers must not each start a BLAS thread per
// core), so results never depend on the number of threads; callers set BLAS threads around the
// regions that call BLAS on whole problems.

namespace radial {

// Sets the number of threads OpenBLAS uses for later calls (values < 1 are treated as 1).
void set_blas_threads(int threads);

// The number of threads OpenBLAS currently uses.
int blas_threads();

}  // namespace radial
