// keep_freed_heap (radial/exec/heap_policy.hpp): applied once, not over a user's own malloc
// settings, and then a 4 MB block comes from the heap instead of its own mapping; release_freed_heap
// returns free pages below a live block.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstdio>
#include <cstring>
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
