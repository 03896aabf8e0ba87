#pragma once
// The lower Cholesky factor A = L L^T in place, blocked and parallel over tiles (right-looking:
// factor a diagonal block, solve the panel below it, update the trailing matrix), for the M x M
// systems of training at scale (the conjugate-gradient preconditioner at M = 10^4: ~1.7 x 10^11
// multiply-adds, where LAPACK's dpotrf with BLAS kept to one thread uses one core). Each tile's
// arithmetic is the same for any thread count (BLAS single-threaded per tile), so the factor's
// bits do not depend on it.

#include <cstddef>

namespace radial {

// a: p x p, column-major (a symmetric matrix may be passed row-major), its lower triangle read.
// On return the lower triangle holds L, as LAPACK's dpotrf('L') leaves it; the strict upper
// triangles of the diagonal blocks are overwritten. Returns 0, or j + 1 when the leading minor of
// order j + 1 is not positive definite (LAPACK's info); a is then partly factored.
std::size_t cholesky_lower(double* a, std::size_t p, int threads);

}  // namespace radial
