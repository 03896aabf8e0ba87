// Result files written so that a failed or interrupted run loses nothing
// (radial/io/output_file.hpp).
#include "radial/io/output_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <random>

namespace radial {

OutputError::OutputError(const std::string& message, int error_number)
    : InputError(message), error_number_(error_number) {}
OutputError::~OutputError() = default;

namespace {

namespace fs = std::filesystem;

std::string hex32(std::uint32_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(8, '0');
  for (int i = 7; i >= 0; --i, value >>= 4) text[std::size_t(i)] = digits[value & 0xf];
  return text;
}

[[noreturn]] void write_failed(const std::string& name, const std::string& step, int error) {
  throw OutputError("cannot write '" + name + "': " + step + " failed (" + std::strerror(error) +
                        "); any previous contents are unchanged",
                    error);
}

// ---- Temporaries the signal handler removes. Fixed buffers: the handler may not allocate.
constexpr int kSignalSlots = 8;
struct SignalSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a temporary to remove
  char path[PATH_MAX];
};
SignalSlot g_slots[kSignalSlots];

int register_temporary(const fs::path& temp) {
  const std::string& text = temp.native();
  if (text.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSignalSlots; ++i) {
    int expected = 0;
    if (!g_slots[i].state.compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_slots[i].path, text.c_str(), text.size() + 1);
    g_slots[i].state.store(2);
    return i;
  }
  return -1;  // more temporaries at once than slots: only the stale-file sweep will find it
}

void release_temporary(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

// Set by hold_termination_signals: the run's results are being committed, so it must finish.
std::atomic<bool> g_termination_held{false};

extern "C" void hold_signal(int) {}

extern "C" void remove_temporaries_and_die(int signal_number) {
  if (g_termination_held.load() && signal_number != SIGPIPE) return;
  for (SignalSlot& slot : g_slots) {
    if (slot.state.load() == 2) ::unlink(slot.path);
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// ---- Stale temporaries: ".NAME.tmp-PID-..." whose PID no longer runs (SIGKILL, power loss).
void remove_stale_temporaries(const fs::path& folder, const std::string& filename) {
  const std::string prefix = "." + filename + ".tmp-";
  DIR* dir = ::opendir(folder.c_str());
  if (dir == nullptr) return;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::size_t i = prefix.size();
    long long pid = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && pid < INT_MAX) {
      pid = pid * 10 + (name[i] - '0');
      ++i;
    }
    if (i == prefix.size() || i >= name.size() || name[i] != '-' || pid <= 0 || pid > INT_MAX) continue;
    if (pid == ::getpid()) continue;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) ::unlinkat(::dirfd(dir), name.c_str(), 0);
  }
  ::closedir(dir);
}

// write(2) until done; the errno of a failure, or 0.
int write_all(int fd, const std::string& contents) {
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += written;
    left -= std::size_t(written);
  }
  return 0;
}

// The final name a chain of symbolic links points to (it may not exist yet).
fs::path follow_links(const fs::path& file, const std::string& name, const std::string& role) {
  fs::path current = file;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current;
    std::error_code error;
    const fs::path target = fs::read_symlink(current, error);
    if (error) throw InputError(name + ": cannot read the link given as " + role + " (" + error.message() + ")");
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw InputError(name + ": too many levels of symbolic links for the " + role);
}

}  // namespace

OutputTarget classify_output(const fs::path& file, const std::string& role) {
  OutputTarget target;
  target.name = file.string();
  if (file == "-") return target;  // Kind::Stdout
  const std::string& name = target.name;
  struct stat info {};
  if (::stat(file.c_str(), &info) == 0) {
    if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
      target.kind = OutputTarget::Kind::InPlace;
      target.path = file;
      return target;
    }
    if (S_ISDIR(info.st_mode)) {
      // The wording keeps "replacing the file" for callers that look for the step that failed.
      throw InputError("cannot write '" + name + "': it is a folder (replacing the file needs a "
                       "regular file or a new name); name a file for the " + role);
    }
    if (!S_ISREG(info.st_mode)) {
      const char* what = S_ISSOCK(info.st_mode) ? "a socket" : S_ISBLK(info.st_mode) ? "a block device"
                                                                                     : "a special file";
      throw InputError("cannot write '" + name + "': it is " + what + "; name a regular file, a "
                       "character device or a FIFO for the " + role);
    }
  } else if (errno != ENOENT) {
    throw InputError("cannot write '" + name + "' as " + role + " (" + std::strerror(errno) +
                     "); check the path");
  }
  // A regular file or a new name; a link is replaced at its end, so the link survives.
  const fs::path final_path = follow_links(file, name, role);
  const fs::path leaf = final_path.filename();
  if (leaf.empty() || leaf == "." || leaf == "..")
    throw InputError("cannot write '" + name + "': not a file name; name a file for the " + role);
  const fs::path folder = final_path.parent_path().empty() ? fs::path(".") : final_path.parent_path();
  struct stat folder_info {};
  if (::stat(folder.c_str(), &folder_info) != 0 || !S_ISDIR(folder_info.st_mode)) {
    throw InputError("cannot write '" + name + "': the folder '" + folder.string() +
                     "' does not exist; create it or name another " + role);
  }
  target.kind = OutputTarget::Kind::Replace;
  target.path = final_path;
  return target;
}

PendingOutput::PendingOutput(OutputTarget target, const std::string& contents)
    : target_(std::move(target)) {
  if (target_.kind != OutputTarget::Kind::Replace) {
    contents_ = contents;
    return;
  }
  const fs::path& file = target_.path;
  const std::string& name = target_.name;
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  remove_stale_temporaries(folder, file.filename().string());

  // A unique name beside the target, so the rename stays within one file system.
  static std::atomic<unsigned> counter{0};
  std::random_device entropy;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp_ = folder / ("." + file.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                      std::to_string(counter++) + "-" + hex32(entropy()));
    // Registered before it exists, so a signal from now on removes it.
    signal_slot_ = register_temporary(temp_);
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      const int error = errno;
      release_temporary(signal_slot_);
      signal_slot_ = -1;
      if (error != EEXIST) {
        temp_.clear();
        write_failed(name, "creating a temporary file in '" + folder.string() + "'", error);
      }
    }
  }
  if (fd < 0) {
    temp_.clear();
    write_failed(name, "creating a unique temporary file", EEXIST);
  }

  auto abandon = [&](const std::string& step, int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temp_.c_str());
    release_temporary(signal_slot_);
    signal_slot_ = -1;
    temp_.clear();
    write_failed(name, step, error);
  };
  // A replaced file keeps its permissions (a private model stays private).
  struct stat existing {};
  if (::stat(file.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::fchmod(fd, existing.st_mode & 07777) != 0)
    abandon("copying the permissions of the existing file", errno);
  if (const int error = write_all(fd, contents))
    abandon("writing " + std::to_string(contents.size()) + " bytes", error);
  if (::fsync(fd) != 0) abandon("flushing to disk", errno);
  const int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("closing the temporary file", errno);
}

PendingOutput::~PendingOutput() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
  release_temporary(signal_slot_);
}

void PendingOutput::commit() {
  switch (target_.kind) {
    case OutputTarget::Kind::Stdout:
      write_stdout(contents_);
      return;
    case OutputTarget::Kind::InPlace: {
      // No O_CREAT: the device or FIFO was there when classified; no O_TRUNC: meaningless here.
      const int fd = ::open(target_.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) write_failed(target_.name, "opening", errno);
      const int error = write_all(fd, contents_);
      const int closed = ::close(fd);
      if (error != 0) write_failed(target_.name, "writing " + std::to_string(contents_.size()) + " bytes", error);
      if (closed != 0) write_failed(target_.name, "closing", errno);
      return;
    }
    case OutputTarget::Kind::Replace:
      break;
  }
  if (temp_.empty()) return;  // already committed
  const fs::path& file = target_.path;
  if (::rename(temp_.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp_.c_str());
    release_temporary(signal_slot_);
    signal_slot_ = -1;
    temp_.clear();
    write_failed(target_.name, "replacing the file", error);
  }
  release_temporary(signal_slot_);
  signal_slot_ = -1;
  temp_.clear();
  // Make the rename itself durable; a failure here leaves a complete file, so it is ignored.
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomically(const fs::path& file, const std::string& contents) {
  PendingOutput output(classify_output(file, "output file"), contents);
  output.commit();
}

// For a terminal: control characters (C0 but tab and line end, DEL, and UTF-8's C1 range) as
// visible escapes, so that a stored name holding ESC[2J or an OSC title is shown, not obeyed.
std::string terminal_safe(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  static const char* hex = "0123456789abcdef";
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xc2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9f;
    if (c1) {
      const auto d = static_cast<unsigned char>(text[++i]);
      out += "\\u00";
      out += hex[d >> 4];
      out += hex[d & 15];
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  return out;
}

void write_stdout(const std::string& text) {
  std::cout.flush();
  if (const int error =
          write_all(STDOUT_FILENO, ::isatty(STDOUT_FILENO) ? terminal_safe(text) : text)) {
    throw OutputError("writing the results to stdout failed (" + std::string(std::strerror(error)) + ")",
                      error);
  }
}

void remove_temporaries_on_signals() {
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    // A signal ignored by whoever started us (nohup, a background job) stays ignored.
    if (current.sa_handler == SIG_IGN) continue;
    struct sigaction action {};
    action.sa_handler = remove_temporaries_and_die;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(signal_number, &action, nullptr);
  }
  ::signal(SIGXFSZ, SIG_IGN);
}

void hold_termination_signals() {
  g_termination_held.store(true);
  // Every thread (BLAS keeps its own) gets a handler that does nothing, unless ignored.
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal_number, nullptr, &current) != 0 || current.sa_handler == SIG_IGN)
      continue;
    struct sigaction action {};
    action.sa_handler = hold_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(signal_number, &action, nullptr);
  }
}

}  // namespace radial
