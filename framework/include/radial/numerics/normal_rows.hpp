#pragma once
// Phi_b^T (Phi_b X) for a row block of the design, formed from the block's rows while they are
// in cache: u = X^T phi_i, then Q += u phi_i^T. (The two GEMMs it replaces pack the whole block
// for a product with k <= 8 columns: a third of a conjugate-gradient pass at M = 3000.) Sums in
// an order fixed by the block alone, so threads and ranks do not change the bits of a pass.

#include <cstddef>
#include <vector>

namespace radial {

// The most outputs (columns of X) the row kernels take; above it, two GEMMs per block.
inline constexpr std::size_t normal_rows_max_outputs = 8;

// qt (k x p, row-major) += (Phi_b^T (Phi_b X))^T for block (rows x p, row-major) and
// xt = X^T (k x p); k <= normal_rows_max_outputs. The fastest kernel this CPU runs.
void normal_rows(const double* block, std::size_t rows, std::size_t p, const double* xt,
                 std::size_t k, double* qt);
// The same for a block kept in single precision (DesignMatrix::use_single_storage): each value
// widened to double as it is read, so the sums are those of the widened block's, bit for bit,
// from half the bytes.
void normal_rows(const float* block, std::size_t rows, std::size_t p, const double* xt,
                 std::size_t k, double* qt);

// Every kernel this CPU can run: "portable" (one row at a time), "avx2" and "avx512" (groups of
// rows, so Q and X are read once per group), "avx512-chunked" (the same bits, swept in chunks
// of columns); tests compare them. run_single: the kernel on a single-precision block.
struct NormalRowsKernel {
  const char* name;
  void (*run)(const double* block, std::size_t rows, std::size_t p, const double* xt,
              std::size_t k, double* qt);
  void (*run_single)(const float* block, std::size_t rows, std::size_t p, const double* xt,
                     std::size_t k, double* qt);
};
std::vector<NormalRowsKernel> normal_rows_kernels();

}  // namespace radial
