// gnuplot through a pipe: fork/exec with the script on its stdin, stderr kept in a file.
#include "gnuplot.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "radial/errors.hpp"

namespace radial::cli::plot {
namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A private folder under $TMPDIR (or /tmp), removed with everything in it on scope exit.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/radial-plot-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      throw std::runtime_error("cannot create a temporary folder for gnuplot (" + pattern +
                               "): " + std::strerror(errno) + "; set TMPDIR to a writable folder");
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// gnuplot's single-quoted string: a quote is doubled.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("''") : std::string(1, ch);
  return out + "'";
}

// Writes all of `text` to the socket; false when gnuplot closed its end (it died early).
// send() with MSG_NOSIGNAL: a reader that leaves is an error here, never a SIGPIPE.
bool send_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += std::size_t(n);
  }
  return true;
}

}  // namespace

fs::path find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::string folders = path ? path : "";
  std::istringstream in(folders);
  std::string folder;
  while (std::getline(in, folder, ':')) {
    if (folder.empty()) folder = ".";
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

std::string run_gnuplot(const std::string& terminal, const std::string& script,
                        const std::string& extension) {
  const fs::path gnuplot = find_gnuplot();
  TemporaryFolder folder;
  const fs::path image = folder.path() / ("image." + extension);
  const fs::path errors = folder.path() / "stderr.txt";
  const std::string full = terminal + "\nset output " + quoted(image.string()) + "\n" + script +
                           "\nunset output\n";

  // A socket pair as the pipe: send() can refuse SIGPIPE per call.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
    throw std::runtime_error(std::string("cannot make a pipe to gnuplot: ") + std::strerror(errno));
  }
  const int error_fd = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (error_fd < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw std::runtime_error("cannot create " + errors.string() + ": " + std::strerror(errno));
  }
  std::cout.flush();
  std::cerr.flush();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(ends[0]);
    ::close(ends[1]);
    ::close(error_fd);
    throw std::runtime_error(std::string("cannot start gnuplot: ") + std::strerror(errno));
  }
  if (child == 0) {
    // stdout too goes to the error file: gnuplot's `print` and chatter are never results.
    ::dup2(ends[1], 0);
    ::dup2(error_fd, 1);
    ::dup2(error_fd, 2);
    ::execl(gnuplot.c_str(), "gnuplot", static_cast<char*>(nullptr));
    const char message[] = "exec gnuplot failed\n";
    (void)!::write(2, message, sizeof message - 1);
    ::_exit(127);
  }
  ::close(ends[1]);
  ::close(error_fd);
  send_all(ends[0], full);  // a refusal shows as gnuplot's exit status below
  ::shutdown(ends[0], SHUT_WR);
  ::close(ends[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string messages = read_file(errors);
  while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::error_code error;
  const auto size = fs::file_size(image, error);
  if (!ok || error || size == 0) {
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    if (ok) how = "wrote no image";
    throw std::runtime_error("gnuplot (" + gnuplot.string() + ") " + how +
                             (messages.empty() ? std::string() : ":\n" + messages));
  }
  if (!messages.empty()) std::cerr << "radial: gnuplot: " << messages << "\n";
  return read_file(image);
}

}  // namespace radial::cli::plot
