// keep_freed_heap (radial/exec/heap_policy.hpp): applied once, not over a user's own malloc
// settings, and then a 4 MB block comes from the heap instead of its own mapping; release_freed_heap
// returns free pages below a live block; advise_huge_pages marks a buffer's 2 MiB pages for
// transparent huge pages and keeps its contents.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "radial/exec/heap_policy.hpp"

// AddressSanitizer's allocator ignores mallopt. GCC says so by __SANITIZE_ADDRESS__, clang by
// __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define RADIAL_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RADIAL_TEST_ASAN 1
#endif
#endif

namespace {

bool user_tuned() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                           "GLIBC_TUNABLES"})
    if (std::getenv(name)) return true;
  return false;
}

#if defined(RADIAL_TEST_ASAN)
constexpr bool own_malloc = false;
#elif defined(__GLIBC__)
constexpr bool own_malloc = true;
#else
constexpr bool own_malloc = false;
#endif

}  // namespace

TEST_CASE("keep_freed_heap applies glibc's settings once, unless the user set their own",
          "[heap]") {
  const bool expected = own_malloc && !user_tuned();
  CHECK(radial::keep_freed_heap() == expected);
  CHECK_FALSE(radial::keep_freed_heap());  // once per process
#if defined(__GLIBC__) && !defined(RADIAL_TEST_ASAN)
  // Bytes in mmap'd blocks before and while a 4 MB block is held: glibc maps blocks above
  // 128 KB of their own by default; under the policy (up to 32 MB) the heap serves it.
  const std::size_t before = mallinfo2().hblkhd;
  void* block = std::malloc(std::size_t(4) << 20);
  REQUIRE(block);
  const std::size_t held = mallinfo2().hblkhd;
  std::free(block);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (expected)
    CHECK(held == before);
  else if (tunables && std::string(tunables) == "glibc.malloc.check=0")  // glibc's defaults
    CHECK(held >= before + (std::size_t(4) << 20));
#endif
}

TEST_CASE("release_freed_heap gives the free pages inside the heap back to the kernel",
          "[heap]") {
  radial::keep_freed_heap();
#if defined(__GLIBC__) && !defined(RADIAL_TEST_ASAN)
  // 2048 blocks of 64 KB (from the heap under any settings: below glibc's 128 KB threshold),
  // all freed but the last: their 128 MB lie below a live block, so trimming the heap's top
  // cannot return them; only release_freed_heap can.
  const auto resident = [] {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    REQUIRE(f);
    unsigned long size = 0, pages = 0;
    REQUIRE(std::fscanf(f, "%lu %lu", &size, &pages) == 2);
    std::fclose(f);
    return double(pages) * 4096.0 / double(1 << 20);  // MB
  };
  std::vector<char*> blocks;
  constexpr std::size_t count = 2048, bytes = std::size_t(64) << 10;
  for (std::size_t i = 0; i < count; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(bytes)));
    if (!blocks.back()) FAIL("malloc of 64 KB failed");
    std::memset(blocks.back(), 1, bytes);  // resident
  }
  for (std::size_t i = 0; i + 1 < count; ++i) std::free(blocks[i]);
  const double before = resident();
  radial::release_freed_heap();
  const double after = resident();
  std::free(blocks.back());
  INFO("resident " << before << " MB before, " << after << " MB after");
  CHECK(before - after > 100.0);
#endif
}

namespace {

// The VmFlags of the mapping (/proc/self/smaps) that holds `address`; empty if none.
std::string vm_flags_at(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2 && line.find(' ') > 8) {
      inside = address >= from && address < to;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return {};
}

bool thp_available() {
  std::ifstream enabled("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(enabled, modes);
  return !modes.empty() && modes.find("[never]") == std::string::npos;
}

}  // namespace

TEST_CASE("advise_huge_pages marks the aligned 2 MiB pages of a buffer and keeps its contents",
          "[heap]") {
  constexpr std::size_t huge = std::size_t(2) << 20;
  const std::size_t count = (3 * huge + 4096) / sizeof(double);
  std::vector<double> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = double(i) * 0.5;
  radial::advise_huge_pages(values.data(), count * sizeof(double));
  for (std::size_t i = 0; i < count; ++i) REQUIRE(values[i] == double(i) * 0.5);
  // Too small to hold an aligned 2 MiB page, or empty: nothing to do, nothing touched.
  std::vector<double> small(1000, 3.0);
  radial::advise_huge_pages(small.data(), small.size() * sizeof(double));
  radial::advise_huge_pages(nullptr, 0);
  for (const double v : small) REQUIRE(v == 3.0);
#if defined(__linux__)
  if (thp_available()) {
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(values.data());
    const std::uintptr_t aligned = (start + huge - 1) & ~std::uintptr_t(huge - 1);
    const std::string flags = vm_flags_at(aligned);
    INFO(flags);
    std::istringstream words(flags);
    std::string word;
    bool marked = false;
    while (words >> word) marked |= word == "hg";
    CHECK(marked);
  }
#endif
}

TEST_CASE("advised_zeros is a matrix of zeros of the shape asked", "[heap]") {
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{0, 0}, {3, 5}, {700, 800}}) {
    const radial::Matrix m = radial::advised_zeros(rows, cols);
    REQUIRE(m.shape(0) == rows);
    REQUIRE(m.shape(1) == cols);
    for (const double v : m) REQUIRE(v == 0.0);
  }
}
