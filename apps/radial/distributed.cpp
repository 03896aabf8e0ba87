// The CLI's side of data-parallel runs (distributed.hpp).
#include "distributed.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"

namespace radial::cli {

bool distributed() { return world().size() > 1; }

bool writes_results() { return world().rank() == 0; }

void require_launcher_stdout() {
  if (!distributed()) return;
  const std::string parent = "/proc/" + std::to_string(::getppid());
  std::ifstream comm(parent + "/comm");
  std::string name;
  std::getline(comm, name);
  // mpirun, orterun, prterun: the process that forwards this rank's output to the user.
  if (name.find("mpirun") == std::string::npos && name.find("orterun") == std::string::npos &&
      name.find("prterun") == std::string::npos)
    return;
  // Closed, fd 1 is absent, or (more often) reused by one of the launcher's own descriptors,
  // opened for reading: either way nothing it writes there reaches anyone.
  char target[4096];
  const bool absent =
      ::readlink((parent + "/fd/1").c_str(), target, sizeof target) < 0 && errno == ENOENT;
  bool read_only = false;
  std::ifstream info(parent + "/fdinfo/1");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("flags:", 0) != 0) continue;
    const unsigned long flags = std::strtoul(line.c_str() + 6, nullptr, 8);  // never throws
    read_only = (flags & O_ACCMODE) == O_RDONLY;
  }
  if (!absent && !read_only) return;
  throw OutputError("the standard output of " + name +
                        " is closed, so the results written to it would be lost; give "
                        "--output FILE (or --report FILE), or run with a standard output",
                    EBADF);
}

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
