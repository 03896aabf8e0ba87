#pragma once
// Which hand-written kernels this process may use. The AVX-512 kernels are chosen at run time
// when the CPU has AVX-512F, unless RADIAL_PORTABLE_KERNELS is set (to any value): then every
// pass takes its portable path, so tests can check both paths on one machine.

namespace radial {

bool use_avx512_kernels();

}  // namespace radial
