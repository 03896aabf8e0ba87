#include "interrupt.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

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

// Workers still running after an interrupt; radial's atexit handler waits for them, so none runs
// while the interpreter and the libraries' statics are torn down. Leaked on purpose.
struct Background {
  std::mutex mutex;
  std::condition_variable idle;
  std::size_t running = 0;
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

// Takes the GIL back, unless the interpreter is finalizing: a daemon thread that asks for it
// then is ended by Python with pthread_exit, whose unwinding through C++ frames aborts the process
// (issue 46: interpreter exit while a daemon thread is in fit). Such a thread waits for the
// process to end instead.
void take_gil(PyThreadState* state) {
  if (_Py_IsFinalizing())
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  PyEval_RestoreThread(state);
}

}  // namespace

void wait_for_background_work() {
  py::gil_scoped_release release;
  Background& b = background();
  std::unique_lock<std::mutex> lock(b.mutex);
  b.idle.wait(lock, [&] { return b.running == 0; });
}

void run_interruptible(std::function<void(const std::atomic<bool>& cancelled)> work) {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, forget_workers_in_child); });
  auto shared = std::make_shared<Shared>();
  {
    std::lock_guard<std::mutex> lock(background().mutex);
    ++background().running;
  }
  // The thread owns `shared` and `work` (with everything it captured), so it may outlive this
  // call after an interrupt.
  std::thread worker([shared, work = std::move(work)] {
    try {
      work(shared->cancelled);
    } catch (...) {
      shared->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->done = true;
      shared->finished.notify_all();
    }
    std::lock_guard<std::mutex> lock(background().mutex);
    if (--background().running == 0) background().idle.notify_all();
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
      worker.detach();
      throw py::error_already_set();
    }
  }
  worker.join();
  if (shared->error) std::rethrow_exception(shared->error);
}

}  // namespace radial::python
