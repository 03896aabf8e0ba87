#pragma once
// Progress of an experiment on stderr: a bar redrawn in place on a terminal (runs done / total,
// failed, elapsed, ETA), one plain line per finished run otherwise (logs, CI), nothing when quiet.

#include <cstddef>
#include <string>

namespace radial::cli {

class ProgressLine {
 public:
  enum class Mode { Bar, Lines, Quiet };
  // Bar when stderr is a terminal, else Lines; Quiet when `quiet`.
  explicit ProgressLine(bool quiet);
  Mode mode() const { return mode_; }

  // After each run: done of total, failed so far, seconds elapsed, and the run's description
  // ("synth / RBF/EM / seed 3: ok, 0.12 s") for the plain lines.
  void update(std::size_t done, std::size_t total, std::size_t failed, double elapsed,
              const std::string& run);
  // Ends the bar's line (the table follows on stdout).
  void finish();

 private:
  Mode mode_;
  bool drawn_ = false;
};

// "1:05", "12:00:03": seconds as minutes and seconds (hours when needed).
std::string clock_text(double seconds);

}  // namespace radial::cli
