// A training run in a dozen lines for a person at a terminal.
#include "summary.hpp"

#include <cstdio>
#include <sstream>

namespace radial::cli {
namespace {

std::string fixed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string seconds(double s) { return s < 0.01 ? fixed("%.2g s", s) : fixed("%.2f s", s); }

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string stage(const StageReport& s, const std::string& counted) {
  std::string line = s.plugin + ": " + counted;
  if (s.fit.iterations > 0) {
    line += ", " + plural(s.fit.iterations, "iteration", "iterations") +
            (s.fit.converged() ? ", converged" : ", NOT converged");
  }
  return line + ", " + seconds(s.fit.seconds);
}

std::string metrics(const Metrics& m) {
  std::string line;
  if (m.error_rate) {
    line = "error rate " + fixed("%.2f%%", 100 * *m.error_rate) + " (" +
           std::to_string(m.misclassified.value_or(0)) + " of " + std::to_string(m.rows) + ")";
    if (m.cross_entropy) line += ", cross-entropy " + fixed("%.4g", *m.cross_entropy);
  } else {
    line = "mse " + fixed("%.4g", m.mse) + " (" + plural(m.rows, "row", "rows") + ")";
  }
  return line;
}

}  // namespace

std::string training_summary(const TrainingReport& r, const std::vector<std::string>& written) {
  std::ostringstream out;
  const auto row = [&](const std::string& what, const std::string& text) {
    out << "  " << what << std::string(what.size() < 10 ? 10 - what.size() : 1, ' ') << text << "\n";
  };
  out << (r.pipeline_name.empty() ? "training run" : r.pipeline_name) << " (seed " << r.seed << ", "
      << plural(std::size_t(r.threads), "thread", "threads") << ", " << seconds(r.seconds)
      << ", CPU " << seconds(r.cpu_seconds) << ")\n";
  std::string data = plural(r.train_rows, "training row", "training rows");
  if (r.test_rows) data += ", " + plural(r.test_rows, "test row", "test rows");
  data += ", " + plural(r.features, "feature", "features");
  if (r.classes) data += ", " + plural(r.classes, "class", "classes");
  row("data", data);
  // The task is always said, with what decided it (issue 47: never a silent guess).
  if (!r.task.empty()) {
    std::string task = r.task;
    if (r.classes) task += ", " + plural(r.classes, "class", "classes");
    if (r.task_from == "data.task") {
      task += " (data.task)";
    } else if (!r.task_from.empty()) {
      task += " (from the " + r.task_from + "; data.task sets it)";
    }
    row("task", task);
  }
  row("centres", stage(r.centres, plural(r.centres.count, "centre", "centres")));
  row("basis", r.basis.plugin);
  row("output", stage(r.output, plural(r.output.count, "output", "outputs")));
  row("train", metrics(r.train));
  if (r.test) row("test", metrics(*r.test));
  if (r.cv) {
    std::string cv = std::to_string(r.cv->folds) + "-fold";
    if (r.classes) {
      cv += ": error rate " + fixed("%.2f%%", 100 * r.cv->error_rate) + " ± " +
            fixed("%.2f%%", 100 * r.cv->error_rate_sd);
    } else {
      cv += ": mse " + fixed("%.4g", r.cv->mse);
    }
    row("cv", cv);
  }
  if (r.search && !r.search->candidates.empty()) {
    std::string best;
    for (const auto& [key, value] : r.search->candidates[r.search->best].values) {
      std::string v = value.index() == 0   ? std::to_string(std::get<std::int64_t>(value))
                      : value.index() == 1 ? fixed("%g", std::get<double>(value))
                      : value.index() == 2 ? (std::get<bool>(value) ? "true" : "false")
                                           : std::get<std::string>(value);
      best += (best.empty() ? "" : ", ") + key + " = " + v;
    }
    row("search", "best of " + std::to_string(r.search->candidates.size()) + " by " + r.search->metric +
                      ": " + best);
  }
  for (const Warning& w : r.warnings) {
    row("warning", w.component + " " + w.guard + ": " + w.message +
                       (w.setting.empty() ? "" : " (to change: " + w.setting + ")"));
  }
  for (const std::string& line : written) row("wrote", line);
  out << "  (the full report: --json, or --report FILE)\n";
  return out.str();
}

}  // namespace radial::cli
