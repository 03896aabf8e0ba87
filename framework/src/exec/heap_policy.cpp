// Heap settings for fits (radial/exec/heap_policy.hpp).
#include "radial/exec/heap_policy.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <mutex>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
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
    applied = mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1 &&
              mallopt(M_TOP_PAD, int(kept_heap_top)) == 1;
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

void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
  if (bytes < huge) return;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

Matrix advised_zeros(std::size_t rows, std::size_t cols) {
  Matrix m = Matrix::from_shape({rows, cols});
  advise_huge_pages(m.data(), m.size() * sizeof(double));
  std::fill(m.begin(), m.end(), 0.0);
  return m;
}

AdvisedFloats::AdvisedFloats(std::size_t count) : count_(count) {
  if (count == 0) return;
  constexpr std::size_t huge = std::size_t(2) << 20;
  const std::size_t bytes = (count * sizeof(float) + huge - 1) / huge * huge;
  float* p = static_cast<float*>(std::aligned_alloc(huge, bytes));
  if (!p) throw std::bad_alloc();
  advise_huge_pages(p, bytes);
  data_.reset(p);
}

void AdvisedFloats::Free::operator()(float* p) const { std::free(p); }

namespace {

std::uint64_t read_available_memory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kilobytes = 0;
  while (meminfo >> key >> kilobytes) {
    if (key == "MemAvailable:") return kilobytes * 1024;
    meminfo.ignore(64, '\n');
  }
  return 0;
}

}  // namespace

std::uint64_t available_memory() {
  // Atomics, not a mutex: a child of fork() must not find it held by a thread it lacks. Two
  // threads may both read the file at once; either value is a fresh one.
  static std::atomic<std::uint64_t> bytes{0};
  constexpr std::int64_t never = -1;
  static std::atomic<std::int64_t> read_at{never};
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now().time_since_epoch())
                               .count();
  const std::int64_t last = read_at.load(std::memory_order_acquire);
  if (last == never || now - last > 100) {
    bytes.store(read_available_memory(), std::memory_order_relaxed);
    read_at.store(now, std::memory_order_release);
  }
  return bytes.load(std::memory_order_relaxed);
}

}  // namespace radial
