// The CLI's side of data-parallel runs (distributed.hpp).
#include "distributed.hpp"

#include <chrono>
#include <iostream>
#include <thread>

#include "radial/errors.hpp"
#include "radial/output_file.hpp"

namespace radial::cli {

bool distributed() { return world().size() > 1; }

bool writes_results() { return world().rank() == 0; }

bool quiet_rank() {
  try {
    return world().rank() != 0;
  } catch (const std::exception&) {
    return false;  // launched by mpirun without MPI built in: the command says so itself
  }
}

int exit_code_for(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const OutputError&) {
    return 1;
  } catch (const InputError&) {
    return 2;
  } catch (...) {
    return 1;
  }
}

CommandScope::CommandScope() {
  if (distributed()) scope_.emplace(world());
}

void on_writer_agreed(const std::function<void()>& step) {
  agreed([&] {
    if (writes_results()) step();
  });
}

void or_end_job(const std::function<void()>& step) {
  if (!distributed()) {
    step();
    return;
  }
  std::string message;
  std::exception_ptr failure;
  try {
    step();
    return;
  } catch (const std::exception& e) {
    message = e.what();
    failure = std::current_exception();
  } catch (...) {
    message = "unknown exception";
    failure = std::current_exception();
  }
  Collectives& comm = world();
  if (comm.rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(1));
  std::cerr << "radial: rank " << comm.rank() << ": " << message << std::endl;
  comm.abort(exit_code_for(failure));
}

}  // namespace radial::cli
