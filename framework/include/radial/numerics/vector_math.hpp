#pragma once
// Vectorised elementwise exp and log over contiguous doubles. exp and log dominate the
// elementwise work of Gaussian bases, log-sum-exp and responsibilities, and a scalar std::exp
// loop is the bottleneck there.
//
// The kernel is chosen once, at first use: on x86-64 with glibc, glibc's vector math library
// (libmvec: AVX-512; on AVX2 CPUs its log and Radial's own exp) when the CPU has it and
// RADIAL_PORTABLE_KERNELS is not set;
// otherwise xsimd batches of the widest instruction set the framework was compiled for (SSE2 on a
// generic x86-64 build), with a scalar tail. Every kernel agrees with std::exp / std::log to
// 4 ulp for finite inputs, including subnormal results and arguments, and follows IEEE limits:
// exp(-inf) = 0, exp(+inf) = +inf, log(0) = -inf, log(x < 0) = NaN, NaN in gives NaN out
// (tests/numerics, "[vector-math]").

#include <cstddef>
#include <vector>

#include "radial/core/types.hpp"

namespace radial {

// values[i] <- exp(values[i]) for i < count.
void exp_in_place(double* values, std::size_t count);

// values[i] <- log(values[i]) for i < count.
void log_in_place(double* values, std::size_t count);

// Whole containers (row-major, contiguous).
inline void exp_in_place(Matrix& m) { exp_in_place(m.data(), m.size()); }
inline void exp_in_place(Vector& v) { exp_in_place(v.data(), v.size()); }
inline void log_in_place(Matrix& m) { log_in_place(m.data(), m.size()); }
inline void log_in_place(Vector& v) { log_in_place(v.data(), v.size()); }

// Responsibilities row by row (a softmax with caps), for the mixture E-step: row n of `rows`
// rows of m values becomes a_nj = exp(b_nj - max) / sum_j exp(b_nj - max) with
// b_nj = min(l_nj, cap_j) + t_n[j] (cap and row_terms may be null: no cap, t = 0; l may be a
// itself), and log_sums[n] = max + log sum. A row whose b are all -inf becomes 0 with log_sums
// -inf. One fused pass per row in registers with the AVX-512 and AVX2 kernels (which set terms
// exp(b_j - max) below DBL_MIN, i.e. subnormal, to 0: keeps libmvec on its vector path), else
// (or with RADIAL_PORTABLE_KERNELS set) separate passes with exp_in_place.
void exp_normalise_rows_from(double* a, std::size_t rows, std::size_t m, const double* l,
                             const double* cap, const double* const* row_terms,
                             double* log_sums);
// The same with l = a and no row terms.
void exp_normalise_rows(double* a, std::size_t rows, std::size_t m, const double* cap,
                        double* log_sums);

// Every exp_normalise_rows_from kernel this CPU can run ("passes", "avx2", "avx512"), whichever
// is in use (tests compare them all).
struct ExpNormaliseKernel {
  const char* name;
  void (*run)(double* a, std::size_t rows, std::size_t m, const double* l, const double* cap,
              const double* const* row_terms, double* log_sums);
};
std::vector<ExpNormaliseKernel> exp_normalise_kernels();

// The kernel in use: "libmvec-avx512", "avx2-fma" (Radial's exp, libmvec's log), or the xsimd
// architecture name
// ("sse2", "avx2", ...). For reports and benchmarks.
const char* vector_math_kernel();

// The portable xsimd kernels alone, whatever the CPU (tests and benchmarks compare them).
void exp_in_place_xsimd(double* values, std::size_t count);
void log_in_place_xsimd(double* values, std::size_t count);

}  // namespace radial
