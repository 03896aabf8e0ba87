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
#include "radial/errors.hpp"
#include "radial/parallel.hpp"

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
  SearchValues values(spec.axes.size());
  for (std::size_t a = spec.axes.size(); a-- > 0;) {
    const std::size_t size = spec.axes[a].values.size();
    values[a] = {spec.axes[a].key, spec.axes[a].values[index % size]};
    index /= size;
  }
  return values;
}

std::string chosen_note(const SearchValues& values) {
  return "# [search] chose " + describe(values) + "\n";
}

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
  const std::size_t rows = count_over_ranks(raw.rows());  // sharded: all ranks' rows
  const std::size_t folds = report.folds, candidates = spec.candidates.size();
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
  std::vector<std::vector<std::size_t>> in(folds), out(folds);
  for (std::size_t n = 0; n < raw.rows(); ++n) {
    for (std::size_t k = 0; k < folds; ++k) (fold_of[n] == k ? out[k] : in[k]).push_back(n);
  }
  std::vector<Dataset> tests;  // read-only, shared by the workers
  for (std::size_t k = 0; k < folds; ++k) tests.push_back(select_rows(raw, out[k]));

  // A dynamic queue of (candidate, fold) tasks. A candidate's folds after its lowest failed
  // fold are skipped; the lowest failed fold itself always runs, so the message kept is the
  // same for any thread count.
  const std::size_t tasks = candidates * folds;
  std::vector<Outcome> outcomes(tasks);
  std::vector<std::atomic<std::size_t>> failed_fold(candidates);
  for (auto& f : failed_fold) f.store(folds);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  // Sharded: one task at a time, since every fit calls collectives, which come from one thread
  // in the same order on every rank; the fit gets the whole thread budget for its row blocks.
  const std::size_t workers = collectives().size() > 1
                                  ? 1
                                  : std::min<std::size_t>(std::size_t(std::max(threads, 1)), tasks);
  const int fit_threads = std::max(1, threads / int(workers));
  const auto work = [&] {
    while (!stop.load()) {
      const std::size_t t = next.fetch_add(1);
      if (t >= tasks) break;
      const std::size_t c = t / folds, k = t % folds;
      if (k > failed_fold[c].load()) continue;
      Outcome& o = outcomes[t];
      const auto start = std::chrono::steady_clock::now();
      try {
        o.metrics = fit(spec.candidates[c], select_rows(raw, in[k]), tests[k],
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
    }
  };
  if (workers <= 1) {
    work();
  } else {
    SingleThreadedBlasScope blas;  // workers x BLAS threads would oversubscribe the cores
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
    work();
    for (auto& thread : pool) thread.join();
  }
  for (const Outcome& o : outcomes) {
    if (o.fatal) std::rethrow_exception(o.fatal);
  }

  // Aggregation in candidate and fold order.
  std::optional<std::size_t> best;
  for (std::size_t c = 0; c < candidates; ++c) {
    SearchCandidateReport r;
    r.values = candidate_values(spec, c);
    for (std::size_t k = 0; k < folds; ++k) r.seconds += outcomes[c * folds + k].seconds;
    const std::size_t failed = failed_fold[c].load();
    if (failed < folds) {
      r.error = outcomes[c * folds + failed].error;
    } else {
      for (std::size_t k = 0; k < folds; ++k) {
        const std::optional<double> value = metric_of(*outcomes[c * folds + k].metrics, report.metric);
        if (!value) {
          throw InputError(where + "metric = \"cross_entropy\" needs probabilities, but output "
                           "plugin '" + spec.candidates[c].output.plugin +
                           "' gives linear outputs; use metric = \"error_rate\" or \"mse\"");
        }
        r.per_fold.push_back(*value);
      }
      double sum = 0;
      for (double v : r.per_fold) sum += v;
      const double mean = sum / double(folds);
      double squares = 0;
      for (double v : r.per_fold) squares += (v - mean) * (v - mean);
      r.mean = mean;
      r.sd = std::sqrt(squares / double(folds - 1));
      const auto better = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
      if (!best || better(mean, *report.candidates[*best].mean)) best = c;
    }
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
  // A numeric value chosen at the smallest or largest of its axis: a better one may lie beyond.
  const SearchValues& chosen = report.candidates[*best].values;
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
    if (low < high && (*value == low || *value == high)) report.edges.push_back(spec.axes[a].key);
  }
  if (log) log("search chose " + describe(report.candidates[*best].values));
  return report;
}

}  // namespace radial::training
