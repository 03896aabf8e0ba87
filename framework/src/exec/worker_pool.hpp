#pragma once
// The threads of the parallel regions (parallel.cpp), kept parked between regions. Spawning and
// joining a thread costs 70-180 us on a virtual machine, more than a small region's work: a
// default fit opens hundreds of regions (k-means++ one per centre), and with two threads its
// k-means took 2-3x the time of one thread.

#include <cstddef>
#include <functional>
#include <system_error>

#include "radial/core/errors.hpp"

namespace radial::detail {

// Runs body(w) for w = 1 .. workers - 1 on the pool's threads, all at once, and body(0) on the
// calling thread; returns when every call has returned, rethrowing the first exception a pool
// thread's call threw. False, with nothing run, when the pool is in use: by a region that
// encloses this one (on this thread or a pool thread) or by another thread's region. The caller
// then runs the region on threads of its own.
bool run_on_pool(std::size_t workers, const std::function<void(std::size_t)>& body);

// The user's error when thread `index` (0-based; 0 is the caller) of `workers` cannot be
// started: the system's limit on threads or memory, fixed by asking for fewer threads.
InputError thread_start_error(std::size_t index, std::size_t workers, const std::system_error& e);

}  // namespace radial::detail
