#include "radial/numerics/cpu.hpp"

#include <cstdlib>

namespace radial {

bool portable_kernels_forced() {
  static const bool forced = std::getenv("RADIAL_PORTABLE_KERNELS") != nullptr;
  return forced;
}

bool use_avx512_kernels() {
  static const bool use = [] {
    if (portable_kernels_forced()) return false;
#if defined(__GNUC__) && defined(__x86_64__)
    return bool(__builtin_cpu_supports("avx512f"));
#else
    return false;
#endif
  }();
  return use;
}

}  // namespace radial
