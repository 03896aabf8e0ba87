#pragma once
// What every fit receives besides its data: a seeded random generator, the thread setting,
// progress reporting, and the fit report in which it records iterations, convergence and every
// numerical guard that fired.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace radial {

// A numerical guard that fired: which guard, what happened, and the setting that would change it.
struct Warning {
  std::string component;  // plugin id, e.g. "kmeans"
  std::string guard;      // e.g. "empty-cluster", "variance-floor", "separable-data"
  std::string message;    // what happened, with numbers
  std::string setting;    // what to change, e.g. "weight-penalty.alpha > 0"
};

// One point of a learning curve.
struct CurvePoint {
  std::size_t iteration = 0;
  double error = 0;
  double flops = 0;    // cumulative
  double seconds = 0;  // cumulative
};

// Why a fit stopped (as Ceres' TerminationType). Reported as "termination", with the
// fit's message.
enum class Termination {
  Converged,         // the stopping rule held, the gradient vanished, or a closed form solved it
  IterationCap,      // the iteration cap came before the stopping rule
  NoProgress,        // no step lowered the error (line search or step control gave up)
  NumericalFailure,  // a non-finite value or a direction that does not descend
};

// "converged", "iteration-cap", "no-progress", "numerical-failure"
inline const char* to_string(Termination termination) {
  switch (termination) {
    case Termination::Converged: return "converged";
    case Termination::IterationCap: return "iteration-cap";
    case Termination::NoProgress: return "no-progress";
    case Termination::NumericalFailure: return "numerical-failure";
  }
  return "unknown";
}

struct FitReport {
  std::size_t iterations = 0;
  // Why the fit stopped, and how in words with its numbers (as Ceres' Solver::Summary
  // termination_type and message): "relative change 3e-9 <= tolerance 1e-8 after 12
  // iterations". Every centre learner and output layer states both with stop(), iterated or not
  // (a closed-form fit is Converged and says so); converged() is derived from them.
  Termination termination = Termination::Converged;
  std::string message;
  double final_error = std::numeric_limits<double>::quiet_NaN();
  double seconds = 0;
  double flops = 0;
  std::size_t function_evaluations = 0;
  std::size_t gradient_evaluations = 0;
  std::vector<CurvePoint> curve;
  std::map<std::string, double> figures;                 // other named results (rank, eta, ...)
  std::map<std::string, std::vector<double>> series;     // per-iteration traces (log R^d, L(theta))
  std::vector<Warning> warnings;

  bool converged() const { return termination == Termination::Converged; }
  void stop(Termination why, std::string how) {
    termination = why;
    message = std::move(how);
  }
};

// Seconds since `start`, a steady_clock reading taken when a fit began (FitReport::seconds).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class FitContext {
 public:
  explicit FitContext(std::uint64_t seed, int threads = 1) : rng(seed), threads(threads) {}

  std::mt19937_64 rng;  // the only source of randomness a component may use
  int threads = 1;      // row-block parallelism; results never depend on it
  FitReport report;
  // Progress lines for the user (stderr in the host); may be empty.
  std::function<void(const std::string&)> log;
  // The id of the component being fitted, set by the framework before it calls the component,
  // so that warnings name it without the component saying its own name.
  std::string component;

  // Records a guard that fired in the current component.
  void warn(std::string guard, std::string message, std::string setting) {
    report.warnings.push_back(
        {component, std::move(guard), std::move(message), std::move(setting)});
  }
  void progress(const std::string& line) const {
    if (log) log(line);
  }
};

}  // namespace radial
