#include "interrupt.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

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
Background& background() {
  static Background* b = new Background();
  return *b;
}

}  // namespace

void wait_for_background_work() {
  py::gil_scoped_release release;
  Background& b = background();
  std::unique_lock<std::mutex> lock(b.mutex);
  b.idle.wait(lock, [&] { return b.running == 0; });
}

void run_interruptible(std::function<void(const std::atomic<bool>& cancelled)> work) {
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
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(shared->mutex);
      if (shared->finished.wait_for(lock, std::chrono::milliseconds(100),
                                    [&] { return shared->done; })) {
        break;
      }
    }
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
