#pragma once
// Vectorised elementwise exp and log over contiguous doubles (xsimd batches with a scalar tail).
// exp and log dominate the elementwise work of Gaussian bases, log-sum-exp and responsibilities,
// and a scalar std::exp loop is the bottleneck there (DESIGN.md, performance rules).
//
// The batch width is the widest instruction set the framework was compiled for (SSE2 on a
// generic x86-64 build, AVX2 with -mavx2 or -march=native). Results agree with std::exp /
// std::log to a few ulp for finite inputs (see tests/numerics, test "vector exp and log") and
// follow IEEE limits: exp(-inf) = 0, exp(+inf) = +inf, log(0) = -inf, log(x < 0) = NaN, NaN in
// gives NaN out.

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

}  // namespace radial
