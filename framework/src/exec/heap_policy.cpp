// Heap settings for fits (radial/exec/heap_policy.hpp).
#include "radial/exec/heap_policy.hpp"

#include <cstdlib>
#include <fstream>
#include <string>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace radial {

bool keep_freed_heap() {
#if defined(__GLIBC__)
  static std::once_flag once;
  bool applied = false;
  std::call_once(once, [&] {
    for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                             "GLIBC_TUNABLES"})
      if (std::getenv(name)) return;
    applied = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 && mallopt(M_TOP_PAD, 64 << 20) == 1;
  });
  return applied;
#else
  return false;
#endif
}

void release_freed_heap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

std::uint64_t available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kilobytes = 0;
  while (meminfo >> key >> kilobytes) {
    if (key == "MemAvailable:") return kilobytes * 1024;
    meminfo.ignore(64, '\n');
  }
  return 0;
}

}  // namespace radial
