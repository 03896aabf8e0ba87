#pragma once
// Row-block parallelism with results that do not depend on the number of threads, so a model
// trained on one machine is bit-identical to one trained on another with more cores.
//
// The rows [0, N) are cut into blocks of `block_rows` rows. The block size is chosen by the
// caller and never by the thread count, so every block is computed from the same rows in the
// same way whatever `threads` is. Blocks are dealt to workers round-robin (block b to worker
// b mod T). In an ordered reduction each worker computes its block's partial result into its own
// buffer and the partials are then combined strictly in block order 0, 1, 2, ..., one at a time,
// so a floating-point sum is the same left-to-right sum for any T: bit-identical results.
// Memory is one partial per worker, never one per block.
//
// BLAS is forced single-threaded for the duration of a parallel region (restored afterwards),
// so T workers never start T x cores BLAS threads. An exception thrown by any callback stops
// the region and is rethrown to the caller (the one from the lowest block when several throw).
//
// The workers other than the calling thread are threads parked between regions (a region costs
// a wake-up, not a thread's start); a region inside a region's callback, or one opened while
// another thread's region holds them, runs on threads started for it.

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

namespace radial {

// Rows per block used by the framework's passes: large enough for BLAS-3 efficiency, small
// enough that a block of distances or basis values (1024 x M doubles) stays in cache.
constexpr std::size_t parallel_block_rows = 1024;

// The thread count a setting means: 0 (or less) = every hardware thread (under mpirun, this
// rank's share of them: ranks_on_this_machine), else the setting.
int resolve_threads(int threads);

// How many ranks of this job share this machine, as the MPI launcher says (Open MPI's
// OMPI_COMM_WORLD_LOCAL_SIZE, MPICH's MPI_LOCALNRANKS); 1 without a launcher. The thread setting
// 0 ("all cores") gives each rank its share of the cores (resolve_threads), not all of them.
int ranks_on_this_machine();

struct RowBlock {
  std::size_t index = 0;  // block number, 0-based
  std::size_t first = 0;  // first row
  std::size_t count = 0;  // rows in the block (the last block may be short)
};

// Number of blocks of `block_rows` rows that cover `rows` rows (block_rows 0 is taken as 1).
std::size_t row_block_count(std::size_t rows, std::size_t block_rows);

// Number of workers a region over `rows` rows will use: min(resolve_threads(threads), blocks),
// at least 1. Callers size per-worker buffers with it.
std::size_t worker_count(std::size_t rows, std::size_t block_rows, int threads);

// Calls work(worker, block) once for every block, blocks spread over worker_count() threads
// (worker 0 is the calling thread). Blocks are independent: the callback may write only to
// rows of its block and to per-worker storage.
void parallel_for_blocks(std::size_t rows, std::size_t block_rows, int threads,
                         const std::function<void(std::size_t worker, const RowBlock&)>& work);

// Ordered reduction: compute(worker, block) fills the worker's partial for the block (in
// parallel), then combine(worker, block) folds that partial into the result; combine runs for
// blocks in the order 0, 1, 2, ..., never two at once, and before the worker's next compute.
void parallel_reduce_blocks(std::size_t rows, std::size_t block_rows, int threads,
                            const std::function<void(std::size_t worker, const RowBlock&)>& compute,
                            const std::function<void(std::size_t worker, const RowBlock&)>& combine);

// Typed convenience over parallel_reduce_blocks: one Partial per worker made by make_partial(),
// compute(block, partial) fills it (it must overwrite or reset what it uses), and
// combine(block, partial) folds it into the caller's result in block order.
template <class Partial, class Make, class Compute, class Combine>
void ordered_reduce(std::size_t rows, std::size_t block_rows, int threads, Make make_partial,
                    Compute compute, Combine combine) {
  std::vector<Partial> partials;
  const std::size_t workers = worker_count(rows, block_rows, threads);
  partials.reserve(workers);
  for (std::size_t w = 0; w < workers; ++w) partials.push_back(make_partial());
  parallel_reduce_blocks(
      rows, block_rows, threads,
      [&](std::size_t w, const RowBlock& b) { compute(b, partials[w]); },
      [&](std::size_t w, const RowBlock& b) { combine(b, partials[w]); });
}

// A queue of `tasks` independent jobs (the search's (candidate, fold) fits, an experiment's
// runs): `workers` threads, the calling one and workers - 1 started for the call, each run
// task(t) for the next t not yet taken, in index order, until none is left or `stop` is set (by
// a task, to stop the others). Tasks catch their own exceptions; which thread runs which task
// varies, so a task writes only to its own result.
void run_task_queue(std::size_t tasks, std::size_t workers, std::atomic<bool>& stop,
                    const std::function<void(std::size_t task)>& task);

// Sets BLAS to one thread for the lifetime of the object and restores the previous count when
// the last of the scopes open at once (in any thread) closes.
class SingleThreadedBlasScope {
 public:
  SingleThreadedBlasScope();
  ~SingleThreadedBlasScope();
  SingleThreadedBlasScope(const SingleThreadedBlasScope&) = delete;
  SingleThreadedBlasScope& operator=(const SingleThreadedBlasScope&) = delete;

 private:
  int saved_;  // the count the outermost open scope saved
};

}  // namespace radial
