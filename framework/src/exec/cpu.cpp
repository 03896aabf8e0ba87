#include "radial/exec/cpu.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

extern "C" char* openblas_get_corename(void);

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

bool use_avx2_kernels() {
  static const bool use = [] {
    if (portable_kernels_forced()) return false;
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return false;
#endif
  }();
  return use;
}

bool blas_has_avx512_kernels() {
  static const bool has = [] {
    std::string core = openblas_get_corename();
    std::transform(core.begin(), core.end(), core.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
  }();
  return has;
}

}  // namespace radial
