#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace radial::cli {

std::string clock_text(double seconds) {
  const long total = seconds > 0 && std::isfinite(seconds) ? long(seconds + 0.5) : 0;
  char text[32];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld", total / 60, total % 60);
  }
  return text;
}

ProgressLine::ProgressLine(bool quiet)
    : mode_(quiet ? Mode::Quiet : ::isatty(2) ? Mode::Bar : Mode::Lines) {}

void ProgressLine::update(std::size_t done, std::size_t total, std::size_t failed,
                          double elapsed, const std::string& run) {
  if (mode_ == Mode::Quiet) return;
  const std::string failures = failed == 0 ? "" : ", " + std::to_string(failed) + " failed";
  if (mode_ == Mode::Lines) {
    std::fprintf(stderr, "run %zu/%zu%s: %s\n", done, total, failures.c_str(), run.c_str());
    return;
  }
  constexpr int width = 30;
  const double fraction = total == 0 ? 1.0 : double(done) / double(total);
  const int filled = int(fraction * width);
  std::string bar(std::size_t(filled), '#');
  bar.resize(width, '.');
  // The mean time per run so far times the runs left: runs are alike within an experiment.
  const std::string eta =
      done == 0 || done == total ? "" : ", ETA " + clock_text(elapsed / double(done) * double(total - done));
  // \033[K clears what a longer previous line left.
  std::fprintf(stderr, "\r[%s] %zu/%zu runs%s, %s elapsed%s\033[K", bar.c_str(), done, total,
               failures.c_str(), clock_text(elapsed).c_str(), eta.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (mode_ == Mode::Bar && drawn_) std::fputc('\n', stderr);
  drawn_ = false;
}

}  // namespace radial::cli
