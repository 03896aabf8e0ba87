#pragma once
// Which hand-written kernels this process may use. The AVX-512 kernels are chosen at run time
// when the CPU has AVX-512F, unless RADIAL_PORTABLE_KERNELS is set (to any value): then every
// pass takes its portable path, and vectorised exp/log take xsimd's batches instead of glibc's
// libmvec, so tests can check both paths on one machine and a run's bits do not depend on which
// vector instructions the CPU has.

namespace radial {

// RADIAL_PORTABLE_KERNELS is set.
bool portable_kernels_forced();

bool use_avx512_kernels();

}  // namespace radial
