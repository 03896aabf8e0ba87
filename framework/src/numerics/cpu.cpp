#include "radial/numerics/cpu.hpp"

#include <cstdlib>

namespace radial {

bool use_avx512_kernels() {
  static const bool use = [] {
    if (std::getenv("RADIAL_PORTABLE_KERNELS")) return false;
#if defined(__GNUC__) && defined(__x86_64__)
    return bool(__builtin_cpu_supports("avx512f"));
#else
    return false;
#endif
  }();
  return use;
}

}  // namespace radial
