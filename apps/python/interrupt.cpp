#include "interrupt.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

#include "bindings.hpp"

namespace radial::python {
namespace {

struct Shared {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::exception_ptr error;
  std::atomic<bool> cancelled{false};
};

// A thread that runs one call's work at a time and then waits for the next. Kept between calls:
// starting a thread per call and unmapping its stack at its end (a TLB shootdown) cost about
// 0.15 ms of every fit on session 55's VM, a tenth of a 120-row fit. Leaked on purpose.
struct Worker {
  std::condition_variable wake;
  std::function<void()> job;  // under Background::mutex
};

// Workers still running after an interrupt; radial's atexit handler waits for them, so none runs
// while the interpreter and the libraries' statics are torn down. Leaked on purpose.
struct Background {
  std::mutex mutex;
  std::condition_variable idle;
  std::size_t running = 0;
  bool exiting = false;    // the atexit handler runs: no thread takes the GIL back in take_gil
  std::size_t taking = 0;  // threads between that check and holding the GIL
  std::vector<Worker*> waiting;  // workers with no job
};
Background*& background_slot() {
  static Background* b = new Background();
  return b;
}
Background& background() { return *background_slot(); }

// A child of fork() has none of its parent's workers (only the forking thread is copied), so it
// must not wait for them at exit, nor for a mutex one of them held: it starts with none. The
// parent's record is leaked in the child.
void forget_workers_in_child() { background_slot() = new Background(); }

[[noreturn]] void park() {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

// Takes the GIL back, unless the interpreter is exiting: a daemon thread that asks for it once
// finalization began is ended by Python with pthread_exit, whose unwinding through C++ frames
// aborts the process (issue 46: interpreter exit while a daemon thread is in fit). Such a thread
// waits for the process to end instead. Checking _Py_IsFinalizing alone leaves a window (the flag
// set between the check and the wait for the GIL), so the atexit handler, which runs before
// finalization, sets `exiting` and waits until no thread is inside that window.
void take_gil(PyThreadState* state) {
  Background& b = background();
  {
    std::unique_lock<std::mutex> lock(b.mutex);
    if (b.exiting || _Py_IsFinalizing()) {
      lock.unlock();
      park();
    }
    ++b.taking;
  }
  PyEval_RestoreThread(state);
  std::lock_guard<std::mutex> lock(b.mutex);
  if (--b.taking == 0) b.idle.notify_all();
}

// The worker's loop: its job, then the next one given to it (start_job).
void start_worker(Worker* w) {
  std::thread([w] {
    Background& b = background();
    std::unique_lock<std::mutex> lock(b.mutex);
    for (;;) {
      std::function<void()> next = std::move(w->job);
      w->job = nullptr;
      lock.unlock();
      next();
      next = nullptr;  // what the job captured is released before the next one starts
      lock.lock();
      if (--b.running == 0) b.idle.notify_all();
      b.waiting.push_back(w);
      w->wake.wait(lock, [w] { return bool(w->job); });
    }
  }).detach();
}

// Runs `job` on a waiting worker, or on a new one when all are busy (an interrupted fit still
// running). `running` counts the jobs not finished.
void start_job(std::function<void()> job) {
  Background& b = background();
  std::unique_lock<std::mutex> lock(b.mutex);
  ++b.running;
  if (!b.waiting.empty()) {
    Worker* w = b.waiting.back();
    b.waiting.pop_back();
    w->job = std::move(job);
    w->wake.notify_one();
    return;
  }
  auto* w = new Worker();
  w->job = std::move(job);
  lock.unlock();
  try {
    start_worker(w);
  } catch (...) {  // no thread: the job never runs
    lock.lock();
    --b.running;
    delete w;
    throw;
  }
}

}  // namespace

void wait_for_background_work() {
  py::gil_scoped_release release;
  Background& b = background();
  std::unique_lock<std::mutex> lock(b.mutex);
  b.exiting = true;
  b.idle.wait(lock, [&] { return b.running == 0 && b.taking == 0; });
}

void run_interruptible(std::function<void(const std::atomic<bool>& cancelled)> work) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, forget_workers_in_child); });
  auto shared = std::make_shared<Shared>();
  // The job owns `shared` and `work` (with everything it captured), so it may outlive this
  // call after an interrupt; its worker takes another call's job only after it.
  start_job([shared, work = std::move(work)] {
    try {
      work(shared->cancelled);
    } catch (...) {
      shared->error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->done = true;
    shared->finished.notify_all();
  });
  for (;;) {
    PyThreadState* state = PyEval_SaveThread();
    bool done = false;
    {
      std::unique_lock<std::mutex> lock(shared->mutex);
      done = shared->finished.wait_for(lock, std::chrono::milliseconds(100),
                                       [&] { return shared->done; });
    }
    take_gil(state);
    if (done) break;
    if (PyErr_CheckSignals() != 0) {
      shared->cancelled = true;
      throw py::error_already_set();
    }
  }
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace radial::python
