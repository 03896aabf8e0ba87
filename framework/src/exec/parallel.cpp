// Fixed row-block partition and ordered reduction (see radial/exec/parallel.hpp).
#include "radial/exec/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>

#include "radial/exec/blas_threads.hpp"
#include "worker_pool.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace radial {

namespace {

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

int ranks_on_this_machine() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* value = std::getenv(name)) {
      const int n = std::atoi(value);
      if (n > 0) return n;
    }
  return 1;
}

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  // Under mpirun the ranks on one machine share its cores.
  // Read once: hardware_concurrency reads /sys on every call, and every pass asks.
  static const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, cores / ranks_on_this_machine());
}

std::size_t row_block_count(std::size_t rows, std::size_t block_rows) {
  block_rows = std::max<std::size_t>(1, block_rows);
  return (rows + block_rows - 1) / block_rows;
}

std::size_t worker_count(std::size_t rows, std::size_t block_rows, int threads) {
  const std::size_t blocks = row_block_count(rows, block_rows);
  return std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(resolve_threads(threads)),
                                                        blocks));
}

// The BLAS thread count is one per process: scopes open at once (nested, on workers, or fits
// from several host threads) share it. The first to open saves the count and sets 1; the last
// to close restores it, so overlapping scopes never leave BLAS at 1 thread or restore it early.
namespace {
std::mutex blas_scope_mutex;
std::size_t blas_scope_depth = 0;
int blas_scope_saved = 1;
}  // namespace

SingleThreadedBlasScope::SingleThreadedBlasScope() {
  std::lock_guard<std::mutex> lock(blas_scope_mutex);
  if (blas_scope_depth++ == 0) {
    blas_scope_saved = blas_threads();
    set_blas_threads(1);
  }
  saved_ = blas_scope_saved;
}
SingleThreadedBlasScope::~SingleThreadedBlasScope() {
  std::lock_guard<std::mutex> lock(blas_scope_mutex);
  if (--blas_scope_depth == 0) set_blas_threads(blas_scope_saved);
}

namespace {

RowBlock block_at(std::size_t b, std::size_t rows, std::size_t block_rows) {
  RowBlock block;
  block.index = b;
  block.first = b * block_rows;
  block.count = std::min(block_rows, rows - block.first);
  return block;
}

// State shared by the workers of one region.
struct Region {
  Region(std::size_t rows, std::size_t block_rows, int threads)
      : rows(rows),
        block_rows(std::max<std::size_t>(1, block_rows)),
        blocks(row_block_count(rows, this->block_rows)),
        workers(worker_count(rows, this->block_rows, threads)) {}
  RowBlock block(std::size_t b) const { return block_at(b, rows, block_rows); }

  std::size_t rows, block_rows, blocks, workers;
  std::mutex mutex;
  std::condition_variable turn;
  std::atomic<std::size_t> next_combine{0};  // the block whose partial is combined next
  std::atomic<bool> failed{false};
  std::atomic<int> sleepers{0};  // workers blocked on `turn`
  std::size_t failed_block = std::numeric_limits<std::size_t>::max();
  std::exception_ptr error;

  void fail(std::size_t b, std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!failed || b < failed_block) {
      failed_block = b;
      error = e;
    }
    failed = true;
    turn.notify_all();
  }
  bool stopped() const { return failed.load(); }

  // Waits until block b may be combined; false when the region failed. A block's work can take
  // microseconds (a k-means pass over 1024 rows), less than a sleep and a wake-up on the
  // condition variable, so the worker first spins for kSpinRounds checks (about a millisecond)
  // before it sleeps. It pauses between checks and yields only every 256th: a sched_yield is a
  // system call, which on session 55's VM cost a hypervisor exit each (a tenth of a 1,216-row
  // output solve's time went to yielding while the other worker finished its block).
  bool wait_turn(std::size_t b) {
    for (int round = 0; round < kSpinRounds; ++round) {
      if (failed.load()) return false;
      if (next_combine.load() == b) return true;
      if (round % 256 == 255)
        std::this_thread::yield();
      else
        pause();
    }
    std::unique_lock<std::mutex> lock(mutex);
    ++sleepers;
    turn.wait(lock, [&] { return failed.load() || next_combine.load() == b; });
    --sleepers;
    return !failed.load();
  }
  // Block b is combined: the next may go. The value is set under the mutex so that a worker
  // about to sleep either sees it or is counted in `sleepers` and woken.
  void advance(std::size_t b) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      next_combine.store(b + 1);
    }
    if (sleepers.load() > 0) turn.notify_all();
  }
  static constexpr int kSpinRounds = 16384;
};

// Every block in order on this thread (one worker), BLAS single-threaded as in a pool.
template <class Each>
void run_here(const Region& region, Each each) {
  const SingleThreadedBlasScope blas;
  for (std::size_t b = 0; b < region.blocks; ++b) each(region.block(b));
}

// The workers on the parked pool (worker_pool.hpp), or on threads of their own when the pool is
// in use (a region within a region, or another thread's).
template <class Body>
void run_workers(Region& region, Body body) {
  const SingleThreadedBlasScope blas;
  if (detail::run_on_pool(region.workers, body)) {
    if (region.error) std::rethrow_exception(region.error);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(region.workers - 1);
  try {
    for (std::size_t w = 1; w < region.workers; ++w) pool.emplace_back(body, w);
  } catch (const std::system_error& e) {
    // The workers already started see the failure and return; joined, not left to terminate().
    region.fail(0, std::make_exception_ptr(detail::thread_start_error(pool.size() + 1,
                                                                      region.workers, e)));
    for (auto& t : pool) t.join();
    std::rethrow_exception(region.error);
  }
  body(0);
  for (auto& t : pool) t.join();
  if (region.error) std::rethrow_exception(region.error);
}

}  // namespace

void parallel_for_blocks(std::size_t rows, std::size_t block_rows, int threads,
                         const std::function<void(std::size_t, const RowBlock&)>& work) {
  Region region(rows, block_rows, threads);
  if (region.blocks == 0) return;
  if (region.workers == 1) return run_here(region, [&](const RowBlock& block) { work(0, block); });
  run_workers(region, [&](std::size_t w) {
    for (std::size_t b = w; b < region.blocks; b += region.workers) {
      if (region.stopped()) return;
      try {
        work(w, region.block(b));
      } catch (...) {
        region.fail(b, std::current_exception());
        return;
      }
    }
  });
}

void parallel_reduce_blocks(std::size_t rows, std::size_t block_rows, int threads,
                            const std::function<void(std::size_t, const RowBlock&)>& compute,
                            const std::function<void(std::size_t, const RowBlock&)>& combine) {
  Region region(rows, block_rows, threads);
  if (region.blocks == 0) return;
  if (region.workers == 1) {
    return run_here(region, [&](const RowBlock& block) {
      compute(0, block);
      combine(0, block);
    });
  }
  run_workers(region, [&](std::size_t w) {
    for (std::size_t b = w; b < region.blocks; b += region.workers) {
      const RowBlock block = region.block(b);
      try {
        compute(w, block);
      } catch (...) {
        region.fail(b, std::current_exception());
        return;
      }
      // Wait for this block's turn: blocks before it have been combined.
      if (!region.wait_turn(b)) return;
      try {
        combine(w, block);
      } catch (...) {
        region.fail(b, std::current_exception());
        return;
      }
      region.advance(b);
    }
  });
}

void run_task_queue(std::size_t tasks, std::size_t workers, std::atomic<bool>& stop,
                    const std::function<void(std::size_t task)>& task) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    while (!stop.load()) {
      const std::size_t t = next.fetch_add(1);
      if (t >= tasks) break;
      task(t);
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
}

}  // namespace radial
