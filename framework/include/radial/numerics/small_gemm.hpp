#pragma once
// C = A B (or C += A B) for the skinny products of the mixture E-step: features (rows x P)
// times coefficients (P x M), and responsibilities^T (M x rows) times features (rows x P); and,
// where OpenBLAS lacks AVX-512 kernels, the Gram matrices and products of the closed-form
// selection and the least-squares output (small_gemm_beats_blas).
//
// Why not only BLAS: OpenBLAS 0.3.21 (Debian 12, DYNAMIC_ARCH) does not recognise the
// development machine's AVX-512 CPU and falls back to its Prescott (SSE3) kernels, ~10 GFLOP/s
// on one core, while OPENBLAS_CORETYPE=SkylakeX gives ~35. So on a CPU with AVX-512F this
// runs a register-blocked AVX-512 kernel (6 x 32 tiles of C, FMA along k in order);
// elsewhere, or with RADIAL_PORTABLE_KERNELS set (radial/exec/cpu.hpp), cblas_dgemm. Either way the result depends only on the inputs, not on
// threads (each call is single-threaded when called inside a parallel region).

#include <cstddef>

namespace radial {

// A(i, k) is a[i * a_row + k * a_col] (so a_col = 1: row-major A; a_row = 1: A is the
// transpose of a row-major k x m array with a_col = its row length). B is row-major k x n with
// row length ldb; C row-major m x n with row length ldc. accumulate: C += A B, else C = A B.
// One of a_row, a_col must be 1.
void small_gemm(std::size_t m, std::size_t n, std::size_t k, const double* a, std::size_t a_row,
                std::size_t a_col, const double* b, std::size_t ldb, double* c, std::size_t ldc,
                bool accumulate);

// C = max(0, A B) (no accumulation), stored to c and to copy (both m x n, row length ldc): the
// clamped squared distances of the GEMM identity and the copy a basis map overwrites, in the
// kernel's one store (the BLAS path clamps and copies in a pass of its own; the same values).
void small_gemm_clamped(std::size_t m, std::size_t n, std::size_t k, const double* a,
                        std::size_t a_row, std::size_t a_col, const double* b, std::size_t ldb,
                        double* c, double* copy, std::size_t ldc);

// The kernel in use: "avx512" or "blas".
const char* small_gemm_kernel();

// True when the AVX-512 kernel runs and OpenBLAS has no AVX-512 kernels of its own
// (radial/exec/cpu.hpp): the large products of the selection and the output are then faster
// through it (AMD EPYC Zen 5 with OpenBLAS on its Haswell core: Phi^T Phi 71 GFLOP/s on one core
// against dsyrk's 40, Phi V 86 against dgemm's 51).
bool small_gemm_beats_blas();

// The upper triangle of C (n x n, row length ldc) += A^T A for row-major A (rows x n, row length
// lda): by the kernel in panels of 64 rows of C when small_gemm_beats_blas() (the panels'
// diagonal blocks write below the diagonal too), else by dsyrk. Single-threaded inside a
// parallel region; the bits depend only on the inputs.
void small_gemm_upper_gram(const double* a, std::size_t rows, std::size_t n, std::size_t lda,
                           double* c, std::size_t ldc);

// The cblas_dgemm path alone, whatever the CPU (tests compare both).
void small_gemm_blas(std::size_t m, std::size_t n, std::size_t k, const double* a,
                     std::size_t a_row, std::size_t a_col, const double* b, std::size_t ldb,
                     double* c, std::size_t ldc, bool accumulate);

}  // namespace radial
