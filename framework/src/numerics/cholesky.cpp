#include "radial/numerics/cholesky.hpp"

#include <algorithm>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/exec/parallel.hpp"

namespace radial {

namespace {

using Index = xt::blas_index_t;
// Tile width: GEMMs of 256-wide panels run near BLAS's peak, and the serial diagonal factor
// (256^3 / 6 multiply-adds per block) stays a few percent of the whole.
constexpr std::size_t tile = 256;

}  // namespace

std::size_t cholesky_lower(double* a, std::size_t p, int threads) {
  const auto at = [&](std::size_t i, std::size_t j) { return a + i + j * p; };
  for (std::size_t k0 = 0; k0 < p; k0 += tile) {
    const std::size_t kb = std::min(tile, p - k0);
    const Index info = cxxlapack::potrf<Index>('L', Index(kb), at(k0, k0), Index(p));
    if (info != 0) return k0 + std::size_t(info);
    const std::size_t first = k0 + kb, rest = p - first;
    if (rest == 0) break;
    // The panel below: A21 <- A21 L11^-T, by row slices.
    parallel_for_blocks(rest, tile, threads, [&](std::size_t, const RowBlock& b) {
      cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Right, cxxblas::Lower, cxxblas::Trans,
                           cxxblas::NonUnit, Index(b.count), Index(kb), 1.0, at(k0, k0),
                           Index(p), at(first + b.first, k0), Index(p));
    });
    // The trailing matrix, by column panels: A22[j0:, J] -= A21[j0:, :] A21[J, :]^T (the lower
    // part and the panel's diagonal block whole).
    parallel_for_blocks(rest, tile, threads, [&](std::size_t, const RowBlock& b) {
      const std::size_t j0 = first + b.first;
      cxxblas::gemm<Index>(cxxblas::ColMajor, cxxblas::NoTrans, cxxblas::Trans, Index(p - j0),
                           Index(b.count), Index(kb), -1.0, at(j0, k0), Index(p), at(j0, k0),
                           Index(p), 1.0, at(j0, j0), Index(p));
    });
  }
  return 0;
}

}  // namespace radial
