// keep_freed_heap (radial/heap_policy.hpp): applied once, not over a user's own malloc
// settings, and then a 4 MB block comes from the heap instead of its own mapping.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "radial/heap_policy.hpp"

namespace {

bool user_tuned() {
  for (const char* name : {"MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                           "GLIBC_TUNABLES"})
    if (std::getenv(name)) return true;
  return false;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool own_malloc = false;  // ASan's allocator ignores mallopt
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
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
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
