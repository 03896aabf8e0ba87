#pragma once
// Long calls with the GIL released, interruptible by Ctrl-C.
//
// The framework has no cancellation hook, so the work runs on a thread of its own while the
// calling thread waits without the GIL and checks for signals every 100 ms. On Ctrl-C the
// KeyboardInterrupt is raised at once; `cancelled` is set, which the trainer's progress log
// turns into an exception at its next line (between stages, folds, candidates, iterations of
// plugins that report them); until then the thread finishes in the background and its result
// is dropped. The process stays usable meanwhile (it costs CPU, not correctness).

#include <atomic>
#include <functional>

namespace radial::python {

void run_interruptible(std::function<void(const std::atomic<bool>& cancelled)> work);

// Blocks (without the GIL) until every interrupted fit's thread has finished (atexit); from
// then on a thread waiting for a fit does not take the GIL back but waits for the process to end.
void wait_for_background_work();

}  // namespace radial::python
