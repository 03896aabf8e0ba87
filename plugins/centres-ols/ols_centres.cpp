// The `ols` centre learner (ols_centres.hpp).
#include "ols_centres.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>

#include <radial/data/missing_values.hpp>
#include <radial/distributed/collectives.hpp>
#include <radial/distributed/sharded_rows.hpp>
#include <radial/core/errors.hpp>
#include <radial/exec/heap_policy.hpp>
#include <radial/network/output_layer.hpp>
#include <radial/core/text.hpp>

namespace radial::plugins {

namespace {

const char* const who = "centres ols";

// The orthogonalised candidate columns are held whole (N x M_c doubles): at most this much.
constexpr double column_budget_bytes = 2.0 * 1024 * 1024 * 1024;

// `count` of `total` row numbers drawn without replacement from ctx's generator (a partial
// Fisher-Yates shuffle), ascending.
std::vector<std::size_t> candidate_rows(std::size_t total, std::size_t count, std::mt19937_64& rng) {
  std::vector<std::size_t> index(total);
  std::iota(index.begin(), index.end(), std::size_t(0));
  if (count >= total) return index;
  for (std::size_t i = 0; i < count; ++i)
    std::swap(index[i], index[i + std::size_t(rng() % (total - i))]);
  index.resize(count);
  std::sort(index.begin(), index.end());
  return index;
}

const char* stop_name(OlsStop stop) {
  switch (stop) {
    case OlsStop::Count: return "count";
    case OlsStop::Goal: return "goal";
    case OlsStop::Gcv: return "gcv";
    case OlsStop::Loo: return "loo";
  }
  return "count";
}

// The selection's series, figures, guards and stop into ctx's report.
void report_selection(const OlsSelection& sel, const std::vector<std::size_t>& rows,
                      std::size_t count, const OlsOptions& o, FitContext& ctx) {
  const std::size_t mc = rows.size();
  FitReport& report = ctx.report;
  report.iterations = sel.chosen.size();
  report.final_error = sel.mse.back();
  std::vector<double> selected, err;
  double total_err = sel.bias_err;
  for (std::size_t i = 0; i < sel.chosen.size(); ++i) {
    selected.push_back(double(rows[sel.chosen[i]]));
    err.push_back(sel.err[i]);
    total_err += sel.err[i];
  }
  report.series["selected_rows"] = selected;
  report.series["error_reduction"] = err;
  report.series["mse"] = sel.mse;
  report.series["gcv"] = sel.gcv;
  report.series["loo"] = sel.loo;
  report.series["lambda"] = sel.lambda;
  report.figures["centres"] = double(sel.chosen.size());
  report.figures["candidates"] = double(mc);
  report.figures["bias_error_reduction"] = sel.bias_err;
  report.figures["error_reduction_sum"] = total_err;
  report.figures["mse"] = sel.mse.back();
  report.figures["lambda"] = sel.lambda.back();
  if (sel.lambda_unconverged)
    ctx.warn("lambda-unconverged",
             "the re-estimation of lambda did not settle within 1000 iterations at " +
                 std::to_string(sel.lambda_unconverged) + " of the " +
                 std::to_string(sel.chosen.size()) + " steps (its last value was used)",
             "centres.lambda (a fixed value)");
  if (sel.exhausted)
    ctx.warn("dependent-candidates",
             std::to_string(sel.chosen.size()) + " of the " + std::to_string(count) +
                 " centres asked were chosen: every other candidate column is within a factor " +
                 text::number(o.dependence) + " of the span of those chosen",
             "a narrower basis width, or centres.count");
  std::string how = std::string("forward selection of ") + std::to_string(sel.chosen.size()) +
                    " of " + std::to_string(mc) + " candidates, stop = " + stop_name(o.stop);
  if (sel.stopped_by_criterion)
    how += o.stop == OlsStop::Goal ? " (goal met: mse " + text::number(sel.mse.back()) + ")"
                                   : std::string(" (the criterion rose at the next step)");
  else if (sel.exhausted)
    how += " (no independent candidate left)";
  else
    how += " (count reached)";
  how += ", error reduction " + text::number(total_err, 6);
  if (o.reestimate) how += ", lambda re-estimated to " + text::number(sel.lambda.back());
  report.stop(Termination::Converged, how);
}

}  // namespace

Centres OlsCentres::fit_on_basis(const Dataset& train, const KernelPrior*, CandidateBasis& basis,
                                 FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const OlsOptions& o = options_;
  // Sharded (mpirun): this rank holds its rows' part of every candidate's column; the
  // candidates are the same global rows on every rank (forward_selection.hpp sums over ranks).
  const ShardLayout layout = shard_layout(train.rows());
  const std::size_t n = layout.total;
  if (n == 0) throw InputError(std::string(who) + ": the training data have no rows");
  refuse_missing(train.inputs, who);

  // Candidates: every row, or a seeded subset of `candidates` rows.
  const std::size_t wanted = o.candidates == 0 ? n : std::min(o.candidates, n);
  const std::vector<std::size_t> rows = candidate_rows(n, wanted, ctx.rng);
  const std::size_t mc = rows.size();
  const double bytes = 8.0 * double(mc) * double(train.rows());
  const std::uint64_t available = available_memory();
  const double budget =
      available ? std::min(column_budget_bytes, 0.5 * double(available)) : column_budget_bytes;
  if (bytes > budget)
    throw InputError(std::string(who) + ": " + std::to_string(mc) + " candidates on " +
                     std::to_string(n) + " rows need " +
                     text::number(bytes / 1e9, 3) + " GB of orthogonalised columns, more than " +
                     text::number(budget / 1e9, 3) + " GB; set centres.candidates <= " +
                     std::to_string(std::max<std::size_t>(
                         1, std::size_t(budget / (8.0 * double(std::max<std::size_t>(
                                                           train.rows(), 1)))))));

  std::size_t count = o.count ? o.count : auto_centre_count(n, centre_count_classes(train));
  if (count > mc) {
    if (o.count)
      throw InputError(std::string(who) + ": count = " + std::to_string(count) + " but there are " +
                       std::to_string(mc) + " candidate rows; set centres.count <= " +
                       std::to_string(mc) + " or centres.candidates >= " + std::to_string(count) +
                       (o.candidates ? " (0: every row)" : ""));
    ctx.warn("count-capped",
             "the automatic count " + std::to_string(count) + " exceeds the " +
                 std::to_string(mc) + " candidates; at most " + std::to_string(mc) +
                 " centres are chosen",
             "centres.candidates or centres.count");
    count = mc;
  }

  Centres candidates;
  if (collectives().size() > 1) {
    candidates.means = gather_rows(train.inputs, layout, rows);
  } else {
    candidates.means = Matrix::from_shape({mc, train.features()});
    for (std::size_t k = 0; k < mc; ++k)
      std::copy(train.inputs.data() + rows[k] * train.features(),
                train.inputs.data() + (rows[k] + 1) * train.features(),
                candidates.means.data() + k * train.features());
  }
  const Centres& placed = basis.place(std::move(candidates), ctx);

  // The candidates' columns of the design, transposed (one candidate's column contiguous).
  Matrix columns = Matrix::from_shape({mc, train.rows()});
  {
    const std::unique_ptr<DesignMatrix> design = basis.design(train.inputs, 0);
    design->for_each_block([&](std::size_t first, const Matrix& block) {
      const std::size_t width = block.shape(1);  // mc + 1, the bias column last
      for (std::size_t r = 0; r < block.shape(0); ++r)
        for (std::size_t k = 0; k < mc; ++k) columns(k, first + r) = block.data()[r * width + k];
    });
  }
  OlsSettings settings;
  settings.count = count;
  settings.stop = o.stop;
  settings.goal = o.goal;
  settings.lambda = o.lambda;
  settings.reestimate = o.reestimate;
  settings.dependence = o.dependence;
  settings.threads = ctx.threads;
  const OlsSelection sel = forward_select(columns, targets_for(Link::Identity, train), settings);
  if (sel.chosen.empty())
    throw NumericalError(std::string(who) + ": no candidate column is independent of the bias "
                         "column (every activation is the same on all rows); change the "
                         "basis width");

  report_selection(sel, rows, count, o, ctx);
  ctx.report.seconds = seconds_since(start);
  return select_centres(placed, sel.chosen);
}

}  // namespace radial::plugins
