// [search]: every candidate of the grid cross-validated on the same folds with the same
// per-fold seeds (a paired comparison), the lowest mean metric wins, ties to the earlier one.
#include "search.hpp"

#include "user_folds.hpp"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <exception>
#include <thread>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/sample_statistics.hpp"
#include "radial/exec/parallel.hpp"

namespace radial::training {
namespace {

std::string describe(const SearchValues& values) {
  std::string text;
  for (const auto& [key, value] : values) {
    text += (text.empty() ? "" : ", ") + key + " = " + to_string(value);
  }
  return text;
}

// What one (candidate, fold) fit gave.
struct Outcome {
  std::optional<Metrics> metrics;
  std::string error;  // an InputError or NumericalError: the candidate failed
  std::exception_ptr fatal;  // anything else: the search stops
  double seconds = 0;
};

std::optional<double> metric_of(const Metrics& m, const std::string& metric) {
  if (metric == "error_rate") return m.error_rate;
  if (metric == "cross_entropy") return m.cross_entropy;
  return m.mse;
}

}  // namespace

SearchValues candidate_values(const SearchSpec& spec, std::size_t index) {
  std::vector<std::size_t> sizes;
  for (const SearchAxis& axis : spec.axes) sizes.push_back(axis.values.size());
  const std::vector<std::size_t> digit = grid_point(sizes, index);
  SearchValues values(spec.axes.size());
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    values[a] = {spec.axes[a].key, spec.axes[a].values[digit[a]]};
  return values;
}

std::string chosen_note(const SearchValues& values) {
  return "# [search] chose " + describe(values) + "\n";
}

namespace {

// The rows each fold trains on (in) and is tested on (out), and its test rows.
struct SearchFolds {
  std::vector<std::vector<std::size_t>> in, out;
  std::vector<Dataset> tests;  // read-only, shared by the workers
};

// The folds of a search on `raw`: the user's, else [evaluate]'s draw from `seed`.
SearchFolds search_folds(const SearchSpec& spec, const Dataset& raw, std::size_t folds,
                         std::uint64_t seed, const UserFolds* user, const std::string& where) {
  const bool classes = raw.task == Task::Classification;
  const std::size_t rows = count_over_ranks(raw.rows());  // sharded: all ranks' rows
  if (folds > rows) {
    throw InputError(where + "folds = " + std::to_string(folds) + " exceeds the " +
                     std::to_string(rows) + " training rows; use fewer folds");
  }
  if (folds < 2) {
    throw InputError(where + "the given folds leave " + std::to_string(folds) +
                     " fold for a search nested in [evaluate]; give at least 3 folds");
  }
  const auto fold_of = user ? user->fold
                            : assign_folds(raw, folds, spec.stratified && classes,
                                           cv_folds_seed(seed));  // [evaluate]'s
  SearchFolds f;
  f.in.resize(folds);
  f.out.resize(folds);
  for (std::size_t n = 0; n < raw.rows(); ++n) {
    for (std::size_t k = 0; k < folds; ++k) (fold_of[n] == k ? f.out[k] : f.in[k]).push_back(n);
  }
  for (std::size_t k = 0; k < folds; ++k) f.tests.push_back(select_rows(raw, f.out[k]));
  return f;
}

// Every (candidate, fold) fit, task t = candidate * folds + fold, from a queue. A candidate's
// folds after its lowest failed fold are skipped (failed_fold: that fold, or `folds`); the
// lowest failed fold itself always runs, so the message kept is the same for any thread count.
std::vector<Outcome> search_fits(const SearchSpec& spec, const Dataset& raw,
                                 const SearchFolds& f, std::uint64_t seed, int threads,
                                 const FitAndTest& fit,
                                 std::vector<std::atomic<std::size_t>>& failed_fold) {
  const std::size_t folds = f.tests.size(), tasks = spec.candidates.size() * folds;
  std::vector<Outcome> outcomes(tasks);
  for (auto& failed : failed_fold) failed.store(folds);
  std::atomic<bool> stop{false};
  // Sharded: one task at a time, since every fit calls collectives, which come from one thread
  // in the same order on every rank; the fit gets the whole thread budget for its row blocks.
  const std::size_t workers = collectives().size() > 1
                                  ? 1
                                  : std::min<std::size_t>(std::size_t(std::max(threads, 1)), tasks);
  const int fit_threads = std::max(1, threads / int(workers));
  const auto task = [&](std::size_t t) {
    const std::size_t c = t / folds, k = t % folds;
    if (k > failed_fold[c].load()) return;
    Outcome& o = outcomes[t];
    const auto start = std::chrono::steady_clock::now();
    try {
      o.metrics = fit(spec.candidates[c], select_rows(raw, f.in[k]), f.tests[k],
                      cv_fold_seed(seed, k), fit_threads);
    } catch (const InputError& e) {
      o.error = e.what();
    } catch (const NumericalError& e) {
      o.error = e.what();
    } catch (...) {
      o.fatal = std::current_exception();
      stop.store(true);
    }
    if (!o.error.empty()) {
      std::size_t seen = failed_fold[c].load();
      while (k < seen && !failed_fold[c].compare_exchange_weak(seen, k)) {
      }
    }
    o.seconds = seconds_since(start);
  };
  {
    // workers x BLAS threads would oversubscribe the cores.
    std::optional<SingleThreadedBlasScope> blas;
    if (workers > 1) blas.emplace();
    run_task_queue(tasks, workers, stop, task);
  }
  for (const Outcome& o : outcomes) {
    if (o.fatal) std::rethrow_exception(o.fatal);
  }
  return outcomes;
}

// Candidate c's report from its folds' outcomes (`failed`: its lowest failed fold, or folds).
SearchCandidateReport candidate_report(const SearchSpec& spec, std::size_t c,
                                       const std::vector<Outcome>& outcomes, std::size_t folds,
                                       std::size_t failed, const std::string& metric,
                                       const std::string& where) {
  SearchCandidateReport r;
  r.values = candidate_values(spec, c);
  for (std::size_t k = 0; k < folds; ++k) r.seconds += outcomes[c * folds + k].seconds;
  if (failed < folds) {
    r.error = outcomes[c * folds + failed].error;
    return r;
  }
  for (std::size_t k = 0; k < folds; ++k) {
    const std::optional<double> value = metric_of(*outcomes[c * folds + k].metrics, metric);
    if (!value) {
      throw InputError(where + "metric = \"cross_entropy\" needs probabilities, but output "
                       "plugin '" + spec.candidates[c].output.plugin +
                       "' gives linear outputs; use metric = \"error_rate\" or \"mse\"");
    }
    r.per_fold.push_back(*value);
  }
  r.mean = mean(r.per_fold);
  r.sd = sample_sd(r.per_fold);
  return r;
}

// The keys of the numeric axes whose chosen value is the smallest or largest of the axis: a
// better one may lie beyond.
std::vector<std::string> edge_axes(const SearchSpec& spec, const SearchValues& chosen) {
  std::vector<std::string> edges;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    const auto numeric = [](const ParamValue& v) -> std::optional<double> {
      if (v.index() == 0) return double(std::get<std::int64_t>(v));
      if (v.index() == 1) return std::get<double>(v);
      return std::nullopt;
    };
    const std::optional<double> value = numeric(chosen[a].second);
    if (!value || spec.axes[a].values.size() < 2) continue;
    double low = *value, high = *value;
    for (const ParamValue& v : spec.axes[a].values)
      if (const auto x = numeric(v)) low = std::min(low, *x), high = std::max(high, *x);
    if (low < high && (*value == low || *value == high)) edges.push_back(spec.axes[a].key);
  }
  return edges;
}

}  // namespace

SearchReport run_search(const Pipeline& p, const Dataset& raw, std::uint64_t seed, int threads,
                        const FitAndTest& fit, const std::function<void(const std::string&)>& log,
                        const UserFolds* user) {
  const SearchSpec& spec = *p.search;
  const std::string where = spec.where.str() + ": [search] ";
  const bool classes = raw.task == Task::Classification;
  SearchReport report;
  report.metric = spec.metric.empty() ? (classes ? "error_rate" : "mse") : spec.metric;
  report.folds = user ? user->count : spec.folds;
  if (!classes && report.metric != "mse") {
    throw InputError(where + "metric = \"" + report.metric +
                     "\" needs classes, but the training data is regression; use metric = \"mse\"");
  }
  const std::size_t folds = report.folds, candidates = spec.candidates.size();
  const SearchFolds f = search_folds(spec, raw, folds, seed, user, where);
  std::vector<std::atomic<std::size_t>> failed_fold(candidates);
  const std::vector<Outcome> outcomes = search_fits(spec, raw, f, seed, threads, fit, failed_fold);

  // Aggregation in candidate and fold order; the lowest mean wins, ties to the earlier one.
  std::optional<std::size_t> best;
  for (std::size_t c = 0; c < candidates; ++c) {
    SearchCandidateReport r = candidate_report(spec, c, outcomes, folds, failed_fold[c].load(),
                                               report.metric, where);
    const auto better = [](double a, double b) {
      return !std::isnan(a) && (std::isnan(b) || a < b);
    };
    if (r.mean && (!best || better(*r.mean, *report.candidates[*best].mean))) best = c;
    if (log) {
      log("search " + std::to_string(c + 1) + "/" + std::to_string(candidates) + " (" +
          describe(r.values) + "): " +
          (r.mean ? report.metric + " " + std::to_string(*r.mean) + " +- " + std::to_string(*r.sd)
                  : "failed: " + r.error));
    }
    report.candidates.push_back(std::move(r));
  }
  if (!best) {
    throw InputError(spec.where.str() + ": [search]: every candidate failed; first: " +
                     describe(report.candidates.front().values) + ": " +
                     report.candidates.front().error);
  }
  report.best = *best;
  report.edges = edge_axes(spec, report.candidates[*best].values);
  if (log) log("search chose " + describe(report.candidates[*best].values));
  return report;
}

}  // namespace radial::training
