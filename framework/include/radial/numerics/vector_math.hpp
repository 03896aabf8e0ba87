#pragma once
// Vectorised elementwise exp and log over contiguous doubles. exp and log dominate the
// elementwise work of Gaussian bases, log-sum-exp and responsibilities, and a scalar std::exp
// loop is the bottleneck there.
//
// The kernel is chosen once, at first use: on x86-64 with glibc, glibc's vector math library
// (libmvec, AVX-512 or AVX2) when the CPU has it and RADIAL_PORTABLE_KERNELS is not set;
// otherwise xsimd batches of the widest instruction set the framework was compiled for (SSE2 on a
// generic x86-64 build), with a scalar tail. Every kernel agrees with std::exp / std::log to
// 4 ulp for finite inputs, including subnormal results and arguments, and follows IEEE limits:
// exp(-inf) = 0, exp(+inf) = +inf, log(0) = -inf, log(x < 0) = NaN, NaN in gives NaN out
// (tests/numerics, "[vector-math]").

#include <cstddef>

#include "radial/types.hpp"

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

// Responsibilities row by row (a softmax with caps), for the mixture E-step: each of `rows` rows
// of m contiguous values a_j becomes exp(b_j - max) / sum_j exp(b_j - max) with
// b_j = min(a_j, cap_j) (cap may be null: b = a), and log_sums[n] = max + log sum. A row whose
// b are all -inf becomes 0 with log_sums -inf. One fused pass per row in registers with the
// AVX-512 kernel (which sets terms exp(b_j - max) below DBL_MIN, i.e. subnormal, to 0: keeps
// libmvec on its vector path), else (or with RADIAL_PORTABLE_KERNELS set) min/max,
// exp_in_place and normalisation passes.
void exp_normalise_rows(double* a, std::size_t rows, std::size_t m, const double* cap,
                        double* log_sums);
// The separate-pass version alone, whatever the CPU (tests compare both).
void exp_normalise_rows_passes(double* a, std::size_t rows, std::size_t m, const double* cap,
                               double* log_sums);

// The kernel in use: "libmvec-avx512", "libmvec-avx2", or the xsimd architecture name
// ("sse2", "avx2", ...). For reports and benchmarks.
const char* vector_math_kernel();

// The portable xsimd kernels alone, whatever the CPU (tests and benchmarks compare them).
void exp_in_place_xsimd(double* values, std::size_t count);
void log_in_place_xsimd(double* values, std::size_t count);

}  // namespace radial
