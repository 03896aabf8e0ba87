// Atomic writes of result files (radial/output_file.hpp).
#include "radial/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>

#include "radial/errors.hpp"

namespace radial {
namespace {

namespace fs = std::filesystem;

std::string hex32(std::uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(8, '0');
  for (int i = 7; i >= 0; --i, value >>= 4) text[std::size_t(i)] = digits[value & 0xf];
  return text;
}

[[noreturn]] void write_failed(const fs::path& file, const std::string& step, int error) {
  throw InputError("cannot write '" + file.string() + "': " + step + " failed (" +
                   std::strerror(error) + "); any previous contents are unchanged");
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::string& contents) {
  if (file.filename().empty() || file.filename() == "." || file.filename() == "..")
    throw InputError("cannot write '" + file.string() + "': not a file name");
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();

  // A unique name beside the target, so the rename stays within one file system.
  static std::atomic<unsigned> counter{0};
  std::random_device entropy;
  fs::path temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = folder / ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                     std::to_string(counter++) + "-" + hex32(entropy()));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) write_failed(file, "creating a temporary file in '" +
                                                          folder.string() + "'", errno);
  }
  if (fd < 0) write_failed(file, "creating a unique temporary file", EEXIST);

  auto abandon = [&](const std::string& step, int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    write_failed(file, step, error);
  };
  // A replaced file keeps its permissions (a private model stays private).
  struct stat existing {};
  if (::stat(file.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::fchmod(fd, existing.st_mode & 07777) != 0)
    abandon("copying the permissions of the existing file", errno);
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      abandon("writing " + std::to_string(contents.size()) + " bytes", errno);
    }
    data += written;
    left -= std::size_t(written);
  }
  if (::fsync(fd) != 0) abandon("flushing to disk", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("closing the temporary file", errno);
  if (::rename(temp.c_str(), file.c_str()) != 0) abandon("replacing the file", errno);
  // Make the rename itself durable; a failure here leaves a complete file, so it is ignored.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace radial
