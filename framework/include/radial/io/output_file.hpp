#pragma once
// Writing result files (models, reports, predictions) so that a failed run loses nothing.
//
// What a named output is decides how it is written (classify_output):
//   a regular file or a new name   replaced atomically: a temporary file beside it, flushed,
//                                  then renamed over it; a symbolic link is followed to its final
//                                  target, so the link itself survives;
//   a character device or a FIFO   written in place (/dev/null stays a device; a link to
//                                  /proc/self/fd/1 or to a pipe is written through);
//   "-"                            standard output;
//   a folder, socket, block device refused (InputError) before any work.
// Temporaries are named ".NAME.tmp-PID-N-RANDOM"; a write removes those of processes that no
// longer exist, and remove_temporaries_on_signals() makes SIGINT, SIGTERM, SIGHUP and SIGPIPE
// remove the process's own before it dies.

#include <filesystem>
#include <string>

#include "radial/core/errors.hpp"

namespace radial {

// Results that could not be written (a full disk, a read-only folder, a closed stdout). It is an
// InputError for callers that catch every user-facing failure; the host exits 1 for it, since
// the input was fine. error_number() is the errno of the failed call.
class OutputError : public InputError {
 public:
  OutputError(const std::string& message, int error_number);
  ~OutputError() override;
  int error_number() const { return error_number_; }

 private:
  int error_number_;
};

struct OutputTarget {
  enum class Kind { Stdout, Replace, InPlace };
  Kind kind = Kind::Stdout;
  std::filesystem::path path;  // Replace: the final target, links followed; InPlace: as given
  std::string name;            // as given, for messages
};

// What writing to `file` (a `role`: "model file", "report file") would do. Throws InputError
// naming the file and the role for a folder, socket, block device, a missing folder or a path
// that cannot be examined.
OutputTarget classify_output(const std::filesystem::path& file, const std::string& role);

// A result ready to be written. For Replace, the constructor writes and flushes a complete
// temporary file beside the target and commit() renames it into place; for InPlace and Stdout,
// commit() writes the bytes. An uncommitted PendingOutput removes its temporary when destroyed,
// so several outputs can be prepared and then committed together (all or, on a failure before
// the first commit, none). Failures throw OutputError; the previous contents stay unchanged.
class PendingOutput {
 public:
  PendingOutput(OutputTarget target, const std::string& contents);
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput();
  void commit();

 private:
  OutputTarget target_;
  std::string contents_;       // InPlace and Stdout only
  std::filesystem::path temp_;  // Replace only; empty once committed
  int signal_slot_ = -1;
};

// classify_output + PendingOutput + commit: writes `contents` to `file` as described above.
void write_file_atomically(const std::filesystem::path& file, const std::string& contents);

// Writes all of `text` to standard output (fd 1, after flushing std::cout). Throws OutputError
// (error_number() EBADF for a closed stdout, ENOSPC for /dev/full, EPIPE for a reader that left
// while SIGPIPE is ignored). To a terminal, control characters are written as visible escapes
// (\x1b, \u009b): a name stored in a results database cannot drive the terminal.
void write_stdout(const std::string& text);

// For programs: on SIGINT, SIGTERM, SIGHUP and SIGPIPE (unless ignored when the program
// started), remove the temporaries being written, then die by the same signal (exit status
// 128 + signal). SIGXFSZ is ignored so a file size limit fails the write instead of killing the
// process with its temporary. Call once, early in main.
void remove_temporaries_on_signals();

// For programs, just before the last commit of a run: SIGINT, SIGTERM and SIGHUP are caught
// and dropped for the rest of the process. A signal that lands before this call ends the run
// with nothing committed; one that lands after cannot turn a run whose results are in place
// into an exit status of 130/143.
void hold_termination_signals();

}  // namespace radial
