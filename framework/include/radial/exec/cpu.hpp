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

// AVX2 and FMA (every x86-64 CPU of the last decade), unless RADIAL_PORTABLE_KERNELS is set.
bool use_avx2_kernels();

// True when the OpenBLAS in use runs its own AVX-512 kernels (its core is SkylakeX, Cooperlake
// or SapphireRapids): its dsyrk then forms Gram matrices faster than Radial's kernel (the GLM
// Hessians: 1.24 s against 1.53 s on the Skin pipeline, AMD EPYC), so that kernel is used only
// when OpenBLAS runs generic code on an AVX-512 CPU (Debian 12's on a Sapphire Rapids Xeon).
bool blas_has_avx512_kernels();

}  // namespace radial
