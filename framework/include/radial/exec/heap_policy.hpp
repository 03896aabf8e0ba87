#pragma once
// How the process's heap treats the buffers a fit frees (glibc only; a no-op elsewhere).
//
// A fit allocates and frees the same large buffers many times: design blocks and caches, Gram
// matrices, the selection's per-width scratch, on the parallel regions' worker threads.
// glibc's defaults return that memory to the kernel at once (blocks above 128 KB are mmap'd,
// freed heap tops are trimmed), so every reuse pays page faults and page zeroing: 11-31% of a
// default fit's wall time on the benchmark sets (RESULTS.md, session 30).

#include <cstdint>

namespace radial {

// Once per process: serve blocks up to 32 MB from the heap (M_MMAP_THRESHOLD) and keep 64 MB
// at the top of each heap when trimming (M_TOP_PAD), unless the user tuned malloc already
// (MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_, MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES set).
// Returns whether the settings were applied by this call.
bool keep_freed_heap();

// Gives the kernel the free memory of every heap (malloc_trim): called where a stage that freed
// much (the model selection's designs, samples and folds) hands over to one that allocates
// other sizes, so the freed pages do not stay resident beside the next stage's.
void release_freed_heap();

// Bytes of memory the system can still give (MemAvailable of /proc/meminfo); 0 if unknown.
std::uint64_t available_memory();

}  // namespace radial
