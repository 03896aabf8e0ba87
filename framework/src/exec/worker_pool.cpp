// Parked threads for the parallel regions (worker_pool.hpp).
#include "worker_pool.hpp"

#include "radial/core/errors.hpp"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace radial::detail {

namespace {

inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

// How long a thread spins before it sleeps, waiting for the next region or for the workers to
// finish (about 0.1 ms): regions often follow each other within microseconds (k-means++ opens
// one per centre), and a sleep and a wake-up cost tens of microseconds.
constexpr int spin_rounds = 4096;

thread_local bool on_pool_thread = false;

// A region is posted as one word, (generation << 16) | workers, so that a thread reads which
// region it sees and whether it takes part in it at once. Only the threads taking part
// acknowledge it, and the caller waits for them before the next region can be posted: a thread
// that takes part in a region never misses it, and one that does not may sleep through it.
class Pool {
 public:
  static constexpr std::size_t max_workers = 0xffff;

  bool run(std::size_t workers, const std::function<void(std::size_t)>& body) {
    if (workers > max_workers || on_pool_thread) return false;
    bool expected = false;
    if (!busy_.compare_exchange_strong(expected, true)) return false;
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy.store(false); }
    } release{busy_};
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Threads are added, never removed: one per extra worker of the widest region so far.
      while (threads_.size() + 1 < workers) {
        const std::size_t index = threads_.size() + 1;
        try {
          threads_.emplace_back(
              [this, index, seen = posted_.load() >> 16] { loop(index, seen); });
        } catch (const std::system_error& e) {
          // Before the job is posted: the threads made so far stay parked for later regions.
          throw thread_start_error(index, workers, e);
        }
        threads_.back().detach();
      }
      job_ = &body;
      error_ = nullptr;
      remaining_.store(workers - 1);
      // Publishes the job: a thread reads job_ only after it has seen this word.
      posted_.store((((posted_.load() >> 16) + 1) << 16) | workers);
    }
    wake_.notify_all();
    std::exception_ptr here;
    try {
      body(0);
    } catch (...) {
      here = std::current_exception();
    }
    for (int round = 0; round < spin_rounds && remaining_.load() != 0; ++round) spin_pause();
    if (remaining_.load() != 0) {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [&] { return remaining_.load() == 0; });
    }
    if (here) std::rethrow_exception(here);
    if (error_) std::rethrow_exception(error_);
    return true;
  }

 private:
  void loop(std::size_t index, std::uint64_t seen) {
    on_pool_thread = true;
    for (;;) {
      std::uint64_t word = posted_.load();
      for (int round = 0; round < spin_rounds && (word >> 16) == seen; ++round) {
        spin_pause();
        word = posted_.load();
      }
      if ((word >> 16) == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return (posted_.load() >> 16) != seen; });
        word = posted_.load();
      }
      seen = word >> 16;
      if (index >= (word & max_workers)) continue;  // not in this region
      try {
        (*job_)(index);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (remaining_.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // the caller checks under it before sleeping
        done_.notify_all();
      }
    }
  }

  std::atomic<bool> busy_{false};
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;  // detached; they live as long as the process
  std::atomic<std::uint64_t> posted_{0};
  std::atomic<std::size_t> remaining_{0};
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::exception_ptr error_;

 public:
  Pool* previous = nullptr;  // a pool abandoned by fork() before this one's
};

// Never destroyed: its threads may be parked in it while the process exits. A child of fork()
// has none of the parent's threads, so it starts a new pool; the old one stays reachable (from
// `abandoned`), so that a leak checker at the child's exit does not count it.
std::atomic<Pool*> the_pool{nullptr};
Pool* abandoned = nullptr;

void forget_pool_in_child() {
  if (Pool* old = the_pool.exchange(nullptr)) {
    old->previous = abandoned;
    abandoned = old;
  }
}

Pool& pool() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
  Pool* p = the_pool.load();
  if (!p) {
    static std::mutex making;
    std::lock_guard<std::mutex> lock(making);
    p = the_pool.load();
    if (!p) {
      p = new Pool;
      the_pool.store(p);
    }
  }
  return *p;
}

}  // namespace

bool run_on_pool(std::size_t workers, const std::function<void(std::size_t)>& body) {
  return pool().run(workers, body);
}

InputError thread_start_error(std::size_t index, std::size_t workers, const std::system_error& e) {
  return InputError("could not start thread " + std::to_string(index + 1) + " of " +
                    std::to_string(workers) + " (" + e.what() +
                    "): the system's limit on threads or memory is reached; ask for fewer "
                    "threads (--threads, the pipeline's threads, threads= in Python)");
}

}  // namespace radial::detail
