#pragma once
// Opening a file the user named as input (pipeline, data, centres, model), the one place that
// decides what may be read and how.
//
// Regular files are read with their size known. FIFOs, pipes (/dev/stdin, <(...)), character
// devices and /proc files are read as streams, never by seeking, and never beyond a caller's
// limit: `radial inspect /dev/zero` stops at the limit instead of allocating until bad_alloc.
// A directory, a socket, a missing or unreadable file is refused with a message that names the
// file, the role it was given ("pipeline file") and what it is instead.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "radial/core/errors.hpp"

namespace radial {

class InputFile {
 public:
  // Opens `path` for reading as a `role` ("pipeline file", "data file", ...). On failure throws
  // E (an InputError type) with "<path>: <what is wrong>; <what to do>".
  template <class E = InputError>
  static InputFile open(const std::filesystem::path& path, const std::string& role) {
    InputFile file;
    const std::string problem = file.open_impl(path, role);
    if (!problem.empty()) throw E(problem);
    return file;
  }

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  // A regular file: size() is its length. Otherwise a stream of unknown length.
  bool regular() const { return regular_; }
  std::uint64_t size() const { return size_; }
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }

  // Up to `capacity` bytes into `buffer`; 0 at the end of the file. Retries on EINTR; throws E
  // on a read error.
  template <class E = InputError>
  std::size_t read_some(char* buffer, std::size_t capacity) {
    std::string problem;
    const std::size_t got = read_impl(buffer, capacity, problem);
    if (!problem.empty()) throw E(problem);
    return got;
  }

  // The whole file, or E naming the file and `limit` when it holds more than `limit` bytes
  // (checked from the size of a regular file before reading; for a stream, as it arrives).
  template <class E = InputError>
  std::string read_all(std::size_t limit) {
    std::string problem;
    std::string bytes = read_all_impl(limit, problem);
    if (!problem.empty()) throw E(problem);
    return bytes;
  }

 private:
  InputFile() = default;
  std::string open_impl(const std::filesystem::path& path, const std::string& role);
  std::size_t read_impl(char* buffer, std::size_t capacity, std::string& problem);
  std::string read_all_impl(std::size_t limit, std::string& problem);

  int fd_ = -1;
  bool regular_ = false;
  std::uint64_t size_ = 0;
  std::string name_, role_;
};

// "12.5 MB"-style text for messages about limits.
std::string byte_count_text(std::uint64_t bytes);

}  // namespace radial
