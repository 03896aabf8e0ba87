#include "radial/io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace radial {

std::string byte_count_text(std::uint64_t bytes) {
  char text[32];
  if (bytes < 1024 * 1024)
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.1f MB", double(bytes) / (1024.0 * 1024.0));
  return text;
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_),
      size_(other.size_),
      name_(std::move(other.name_)),
      role_(std::move(other.role_)) {}

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    regular_ = other.regular_;
    size_ = other.size_;
    name_ = std::move(other.name_);
    role_ = std::move(other.role_);
  }
  return *this;
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::open_impl(const std::filesystem::path& path, const std::string& role) {
  name_ = path.string();
  role_ = role;
  // Classify before opening: opening a FIFO with no writer would block, and a directory opens.
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      return name_ + ": no such " + role + "; check the path";
    return name_ + ": cannot open the " + role + " (" + std::strerror(error) + ")";
  }
  if (S_ISDIR(info.st_mode)) return name_ + ": is a directory, not a " + role;
  if (S_ISSOCK(info.st_mode)) return name_ + ": is a socket, not a " + role;
  if (S_ISBLK(info.st_mode)) return name_ + ": is a block device, not a " + role;
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    if (error == EACCES) return name_ + ": cannot open the " + role + " (permission denied)";
    return name_ + ": cannot open the " + role + " (" + std::strerror(error) + ")";
  }
  // Classify what was opened, in case the path changed between stat and open.
  if (::fstat(fd_, &info) != 0) return name_ + ": cannot read the " + role + " (" + std::strerror(errno) + ")";
  if (S_ISDIR(info.st_mode)) return name_ + ": is a directory, not a " + role;
  regular_ = S_ISREG(info.st_mode);
  // /proc files report size 0 but hold data: read them as streams.
  if (regular_ && info.st_size == 0) regular_ = false;
  size_ = regular_ ? std::uint64_t(info.st_size) : 0;
  return {};
}

std::size_t InputFile::read_impl(char* buffer, std::size_t capacity, std::string& problem) {
  while (true) {
    const ssize_t got = ::read(fd_, buffer, capacity);
    if (got >= 0) return std::size_t(got);
    if (errno == EINTR) continue;
    const int error = errno;
    if (error == EISDIR) problem = name_ + ": is a directory, not a " + role_;
    else problem = name_ + ": reading the " + role_ + " failed (" + std::strerror(error) + ")";
    return 0;
  }
}

std::string InputFile::read_all_impl(std::size_t limit, std::string& problem) {
  const std::string too_large = name_ + ": the " + role_ + " is larger than " +
                                byte_count_text(limit) + ", the most Radial reads as one " + role_;
  std::string bytes;
  if (regular_) {
    if (size_ > limit) {
      // Exact bytes when rounding would show the limit again (1.1e6 bytes is "1.0 MB" too).
      const std::string held = byte_count_text(size_);
      problem = too_large + " (it holds " +
                (held == byte_count_text(limit) ? std::to_string(size_) + " bytes" : held) + ")";
      return {};
    }
    bytes.reserve(std::size_t(size_));
  }
  char chunk[65536];
  while (true) {
    const std::size_t got = read_impl(chunk, sizeof chunk, problem);
    if (!problem.empty()) return {};
    if (got == 0) break;
    if (bytes.size() + got > limit) {
      problem = too_large;
      return {};
    }
    bytes.append(chunk, got);
  }
  return bytes;
}

}  // namespace radial
