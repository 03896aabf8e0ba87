#pragma once
// How the process's heap treats the buffers a fit frees (glibc only; a no-op elsewhere).
//
// A fit allocates and frees the same large buffers many times: design blocks and caches, Gram
// matrices, the selection's per-width scratch, on the parallel regions' worker threads.
// glibc's defaults return that memory to the kernel at once (blocks above 128 KB are mmap'd,
// freed heap tops are trimmed), so every reuse pays page faults and page zeroing: 11-31% of a
// default fit's wall time on the benchmark sets (RESULTS.md, session 30).

#include <cstddef>
#include <cstdint>
#include <memory>

#include "radial/core/types.hpp"

namespace radial {

// Once per process: serve blocks up to 32 MB from the heap (M_MMAP_THRESHOLD) and keep 64 MB
// at the top of each heap when trimming (M_TOP_PAD), unless the user tuned malloc already
// (MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_, MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES set).
// Returns whether the settings were applied by this call.
bool keep_freed_heap();

// The heap top keep_freed_heap keeps (M_TOP_PAD): a stage whose scratch was smaller frees too
// little for release_freed_heap to be worth its madvise calls.
inline constexpr std::size_t kept_heap_top = std::size_t(64) << 20;

// Gives the kernel the free memory of every heap (malloc_trim): called where a stage that freed
// much (the model selection's designs, samples and folds) hands over to one that allocates
// other sizes, so the freed pages do not stay resident beside the next stage's. Each madvise
// is a TLB shootdown on every core: on session 55's VM the trim after a 120-row selection cost
// as much as the selection's own decompositions of the Gram, so callers skip it below kept_heap_top.
void release_freed_heap();

// Asks the kernel to back the 2 MiB-aligned part of [data, data + bytes) with transparent huge
// pages (madvise MADV_HUGEPAGE; Linux; nothing when no aligned 2 MiB page fits) before it is
// first written:
// one page fault per 2 MiB in place of 512. A first touch of 4 KiB pages cost 10.5 us a page
// on the virtual machine of session 54 (256 MB: 0.69 s; with the advice 0.02 s), so the design
// blocks of a 16,000 x 1,864 fit spent about 0.6 s in page faults. A hint: the contents and the
// results are the same either way.
void advise_huge_pages(void* data, std::size_t bytes);

// A rows x cols matrix of zeros, its pages advised huge before the zeros are written (the Gram
// matrices of the output and the selection: 28 MB at 1,864 centres, 149 MB at 4,311).
Matrix advised_zeros(std::size_t rows, std::size_t cols);

// `count` floats, 2 MiB-aligned and advised huge from their first byte to their last (the
// design's single-precision cache: 862 MB at 50,000 x 4,312; in blocks from the heap only
// about half of it was on huge pages). Uninitialised; freed with the object.
class AdvisedFloats {
 public:
  AdvisedFloats() = default;
  explicit AdvisedFloats(std::size_t count);
  float* data() const { return data_.get(); }
  std::size_t size() const { return count_; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::unique_ptr<float, Free> data_;
  std::size_t count_ = 0;
};

// Bytes of memory the system can still give (MemAvailable of /proc/meminfo); 0 if unknown.
// Read at most once every 100 ms (a read costs tens of microseconds, and a small fit asked
// three times: 20% of the fit's stages on 20 rows); memory checks need no finer clock.
std::uint64_t available_memory();

}  // namespace radial
