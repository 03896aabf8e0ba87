// gnuplot through a pipe: fork/exec with the script on its stdin, the image and its messages
// written into in-memory files.
#include "gnuplot.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"

namespace radial::cli::plot {
namespace {

namespace fs = std::filesystem;

// An anonymous in-memory file (memfd): gnuplot writes the image and its messages into such
// files, which vanish with the process however it ends, so an interrupted plot leaves nothing
// behind in /tmp.
class MemoryFile {
 public:
  explicit MemoryFile(const char* name) : fd_(::memfd_create(name, 0)) {
    if (fd_ < 0) {
      throw std::runtime_error(std::string("cannot create an in-memory file for gnuplot: ") +
                               std::strerror(errno));
    }
  }
  ~MemoryFile() { ::close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  int fd() const { return fd_; }
  std::string contents() const {
    std::string out;
    char buffer[65536];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buffer, std::size_t(n));
      at += n;
    }
    return out;
  }

 private:
  int fd_;
};

using Clock = std::chrono::steady_clock;

// How long gnuplot may take: RADIAL_GNUPLOT_TIMEOUT seconds, else 120 (a figure takes well
// under a second; a gnuplot that hangs must not hold radial forever).
double gnuplot_timeout() {
  const char* text = std::getenv("RADIAL_GNUPLOT_TIMEOUT");
  char* end = nullptr;
  const double seconds = text ? std::strtod(text, &end) : 0;
  // At most a day: a larger value is no different, and the deadline must stay representable.
  return text && end != text && seconds > 0 ? std::min(seconds, 86400.0) : 120.0;
}

int milliseconds_left(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return int(std::max<std::int64_t>(0, std::min<std::int64_t>(left.count(), 60'000)));
}

// Writes all of `text` to the (non-blocking) socket before the deadline; false when gnuplot
// closed its end (it died early) or the time ran out. send() with MSG_NOSIGNAL: a reader that
// leaves is an error here, never a SIGPIPE.
bool send_all(int fd, const std::string& text, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n >= 0) {
      done += std::size_t(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
    pollfd p{fd, POLLOUT, 0};
    if (Clock::now() >= deadline) return false;
    if (::poll(&p, 1, milliseconds_left(deadline)) < 0 && errno != EINTR) return false;
  }
  return true;
}

// The child's exit status, waiting until the deadline; then it is killed (and reaped).
bool wait_until(pid_t child, int& status, Clock::time_point deadline) {
  while (true) {
    const pid_t got = ::waitpid(child, &status, WNOHANG);
    if (got == child) return true;
    if (got < 0 && errno != EINTR) return true;
    if (Clock::now() >= deadline) break;
    ::usleep(2000);
  }
  ::kill(child, SIGKILL);
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return false;
}

}  // namespace

fs::path find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string folders = path ? path : "";
  std::istringstream in(folders);
  std::string folder;
  while (std::getline(in, folder, ':')) {
    // Only absolute entries: an empty or relative one would run a `gnuplot` from whatever
    // folder radial is started in (execvp's rule), as the host already refuses for plugins.
    if (folder.empty() || folder.front() != '/') continue;
    const fs::path candidate = fs::path(folder) / "gnuplot";
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  throw InputError("plotting needs gnuplot, which is not on PATH (" + folders +
                   "); install the Debian package gnuplot-nox (apt-get install gnuplot-nox, "
                   "or run .ci/install-deps)");
}

std::string run_gnuplot(const std::string& terminal, const std::string& script) {
  const fs::path gnuplot = find_gnuplot();
  MemoryFile image("radial-plot-image"), errors("radial-plot-messages");
  // The child sees the image as its fd 3; gnuplot opens it by name and truncates it.
  constexpr int image_fd = 3;
  const std::string full = terminal + "\nset output '/dev/fd/" + std::to_string(image_fd) + "'\n" +
                           script + "\nunset output\n";

  // A socket pair as the pipe: send() can refuse SIGPIPE per call.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    throw std::runtime_error(std::string("cannot make a pipe to gnuplot: ") + std::strerror(errno));
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw std::runtime_error(std::string("cannot start gnuplot: ") + std::strerror(errno));
  }
  if (child == 0) {
    // gnuplot dies with radial, however radial ends (SIGTERM, SIGINT, SIGKILL included).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // radial ended before prctl took effect
    // stdout too goes to the error file: gnuplot's `print` and chatter are never results.
    ::dup2(ends[1], 0);
    ::dup2(errors.fd(), 1);
    ::dup2(errors.fd(), 2);
    ::dup2(image.fd(), image_fd);
    ::execl(gnuplot.c_str(), "gnuplot", static_cast<char*>(nullptr));
    const char message[] = "exec gnuplot failed\n";
    (void)!::write(2, message, sizeof message - 1);
    ::_exit(127);
  }
  ::close(ends[1]);
  const double timeout = gnuplot_timeout();
  const Clock::time_point deadline =
      Clock::now() + std::chrono::microseconds(std::int64_t(timeout * 1e6));
  ::fcntl(ends[0], F_SETFL, ::fcntl(ends[0], F_GETFL) | O_NONBLOCK);
  send_all(ends[0], full, deadline);  // a refusal shows as gnuplot's exit status below
  ::shutdown(ends[0], SHUT_WR);
  ::close(ends[0]);
  int status = 0;
  if (!wait_until(child, status, deadline)) {
    std::ostringstream seconds;
    seconds << timeout;
    throw OutputError("gnuplot (" + gnuplot.string() + ") did not finish within " +
                          seconds.str() + " s and was stopped; no figure was written (set "
                          "RADIAL_GNUPLOT_TIMEOUT, in seconds, to give it longer)",
                      ETIMEDOUT);
  }
  std::string messages = errors.contents();
  while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::string bytes = image.contents();
  if (!ok || bytes.empty()) {
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    if (ok) how = "wrote no image";
    throw std::runtime_error("gnuplot (" + gnuplot.string() + ") " + how +
                             (messages.empty() ? std::string() : ":\n" + messages));
  }
  if (!messages.empty()) std::cerr << "radial: gnuplot: " << messages << "\n";
  return bytes;
}

}  // namespace radial::cli::plot
