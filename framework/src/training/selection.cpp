// Closed-form selection of "choose" values (selection.hpp).
#include "selection.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <random>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/network/candidate_basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/training/metrics.hpp"
#include "radial/model/network.hpp"
#include "radial/network/ridge_loo.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/core/text.hpp"
#include "radial/network/weight_penalty.hpp"
#include "radial/network/width_rule.hpp"

namespace radial::training {

namespace {

// What the designs of the selection may keep in memory at once (DesignMatrix's cache of Phi,
// which spares their second pass), shared by the widths evaluated together and by a fold's fit:
// with the sample (at most ~100000 rows) the selection stays within the data + 256 MB of issue 6.
constexpr std::size_t selection_cache_bytes = std::size_t(192) << 20;

// The seed streams of the selection's row sample and centre subset (trainer.cpp's stages use
// 1-6 and from 100).
constexpr std::uint64_t selection_sample_stream = 7;
constexpr std::uint64_t selection_centre_stream = 8;
constexpr std::uint64_t selection_prescreen_stream = 11;
constexpr std::uint64_t selection_scored_stream = 12;

// `count` of the `total` centres, by a seeded partial Fisher-Yates shuffle, ascending.
std::vector<std::size_t> centre_sample(std::size_t total, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> index(total);
  for (std::size_t i = 0; i < total; ++i) index[i] = i;
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < count && i + 1 < total; ++i)
    std::swap(index[i], index[i + std::size_t(rng() % (total - i))]);
  index.resize(count);
  std::sort(index.begin(), index.end());
  return index;
}

// The number of centres a pipeline's learner will fit on `rows` rows: its count (the parameter
// `count_param`, its CentreCount), or the auto count (radial/network/centre_learner.hpp); 0 when it
// names none (a centres file).
std::size_t expected_count(const Pipeline& p, const std::string& count_param,
                           const Dataset& train, std::size_t rows) {
  const Params& params = p.centres.params;
  if (count_param.empty() || !params.has(count_param)) return 0;
  const std::size_t given = centre_count(params, count_param);
  return given ? given : auto_centre_count(rows, centre_count_classes(train));
}

// The common variance (sigma^2 of every centre) the basis's width rule sets at scale 1, or 0
// when the rule gives each centre its own (shapes, p-nearest) or the basis has no width rule.
// `density`: the basis's Capabilities::density.
double common_variance(const Pipeline& p, bool density, const Centres& centres) {
  try {
    WidthSpec spec = width_spec(p.basis.params, "basis " + p.basis.plugin);
    spec.scale = 1.0;
    Centres copy = centres;
    FitContext ctx(0, 1);
    return apply_width_rule(copy, spec, density, ctx).common_variance;
  } catch (const Error&) {
    return 0;
  }
}

bool is_choose(const Params& params, const std::string& name) {
  return params.has(name) && params.is_word(name, "choose");
}

// The metric S of the pipeline's penalty, whose alpha is chosen or given: its Hessian at
// alpha = 1 on the centres' weights (alpha/2 w^T S w; the RKHS norm's K_MM), so that a chosen
// width is chosen under the penalty's own geometry. Empty for the identity (weight decay: the
// plain ridge path, bit for bit) and without a penalty. The closed form centres the bias away, so the
// penalty must leave it free. A small ridge (1e-8 of the largest entry) keeps S definite where
// a Gaussian K_MM is singular to rounding; the fit itself uses the plugin's own S.
std::optional<Matrix> penalty_metric(const Pipeline& p, const Registry& registry,
                                     const Centres& centres, const Basis& basis,
                                     std::size_t columns) {
  if (!p.weight_penalty) return std::nullopt;
  const ComponentInfo* info = registry.find(Slot::WeightPenalty, p.weight_penalty->plugin);
  if (!info) return std::nullopt;
  const ParamSpec* strength = find_role(info->params, ParamRole::RidgeStrength);
  if (!strength) strength = find_role(info->params, ParamRole::PenaltyStrength);
  if (!strength) return std::nullopt;
  Params params = p.weight_penalty->params;
  params.set(strength->name, 1.0);
  const std::shared_ptr<WeightPenalty> penalty =
      registry.make_weight_penalty(p.weight_penalty->plugin, params);
  penalty->prepare(centres, basis);
  const Matrix zero = xt::zeros<double>({columns, std::size_t(1)});
  Matrix hessian = xt::zeros<double>({columns, columns});
  penalty->add_hessian(zero, hessian);
  const std::size_t m = columns - 1;
  bool identity = true;
  double largest = 0;
  for (std::size_t i = 0; i < columns; ++i)
    for (std::size_t j = 0; j < columns; ++j) {
      const double h = hessian(i, j);
      if ((i == m || j == m) && h != 0)
        throw InputError(p.file.string() + ": weight-penalty " + p.weight_penalty->plugin +
                         ": the closed-form choice of its alpha or the width needs an unpenalised "
                         "bias (set include_bias = false, or give both numbers)");
      if (i < m && j < m) {
        identity = identity && h == (i == j ? 1.0 : 0.0);
        largest = std::max(largest, std::fabs(h));
      }
    }
  if (identity) return std::nullopt;
  Matrix metric = Matrix::from_shape({m, m});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j)
      metric(i, j) = 0.5 * (hessian(i, j) + hessian(j, i)) + (i == j ? 1e-8 * largest : 0.0);
  return metric;
}

// Reals to 10 digits: the values themselves are in the model's parameters, and the last bits
// of a chosen penalty differ with the rank count (sums over ranks in another order).
std::string describe(const SearchValues& values) {
  std::string text;
  for (const auto& [key, value] : values) {
    const double* real = std::get_if<double>(&value);
    text += (text.empty() ? "" : ", ") + key + " = " +
            (real ? text::number(*real, 10) : to_string(value));
  }
  return text;
}

// One output fit per (alpha, fold) on fixed centres and widths: the metric of the layer's own
// fit on the held-out rows (error rate, ties by cross-entropy when there are probabilities;
// MSE for regression), averaged over the folds; NaN when a fit failed. A candidate whose
// summed error passes `hopeless` (the best candidate's whole sum) before its last fold is
// stopped there: it cannot win (stopped, with the partial mean as its error).
struct PathPoint {
  double error = std::numeric_limits<double>::quiet_NaN();
  double tie = 0;
  std::size_t folds = 0;  // folds fitted
  std::string metric;     // the layer's own held-out error (OutputLayer::held_out_error), or empty
};

// The network on `centres` and `basis`, its weights fitted by the pipeline's output layer on
// `fit` (under `penalty`, may be null), and its outputs on `held`; empty when the fit failed on
// an input or numerical error (the candidate is then scored NaN).
struct HeldOutFit {
  std::shared_ptr<OutputLayer> output;
  Model model;
  Matrix outputs;
};
std::optional<HeldOutFit> fit_and_predict(const Pipeline& p, const Registry& registry,
                                          const Dataset& fit, const Dataset& held,
                                          const Centres& centres,
                                          const std::shared_ptr<Basis>& basis,
                                          const WeightPenalty* penalty, std::uint64_t output_seed,
                                          int threads, const Centres* input_model,
                                          std::size_t cache_bytes) {
  HeldOutFit out;
  out.output = registry.make_output_layer(p.output.plugin, p.output.params);
  FitContext ctx(output_seed, threads);
  OutputWeights w;
  try {
    DesignMatrix design(fit.inputs, centres, *basis, false, cache_bytes);
    design.set_input_model(input_model);
    design.set_threads(threads);
    w = out.output->fit(TrainingProblem{design, fit, centres, *basis}, penalty, ctx);
  } catch (const InputError&) {
    return std::nullopt;
  } catch (const NumericalError&) {
    return std::nullopt;
  }
  Model& model = out.model;
  model.task = held.task;
  model.class_values = held.class_values;
  model.class_names = held.class_names;
  model.centres = centres;
  if (input_model) model.input_model = *input_model;
  model.link = w.link;
  model.weights = std::move(w.weights);
  out.outputs = Network(model, basis).predict(held.inputs);
  return out;
}

PathPoint cross_validated(const Pipeline& p, const Registry& registry, const Dataset& train,
                          const Centres& centres, const std::shared_ptr<Basis>& basis,
                          const std::string& penalty_plugin, const Params& penalty_params,
                          const std::vector<std::size_t>& fold_of, std::size_t folds,
                          std::uint64_t output_seed, int threads, double hopeless,
                          const Centres* input_model) {
  const bool classes = train.task == Task::Classification;
  const std::shared_ptr<WeightPenalty> penalty =
      registry.make_weight_penalty(penalty_plugin, penalty_params);
  penalty->prepare(centres, *basis);  // the centres and basis every fold's weights are fitted on
  double error = 0, tie = 0;
  std::size_t rows = 0, k = 0;
  std::string metric;
  for (; k < folds && error <= hopeless; ++k) {
    std::vector<std::size_t> in, out;
    for (std::size_t n = 0; n < train.rows(); ++n) (fold_of[n] == k ? out : in).push_back(n);
    const Dataset fold_train = select_rows(train, in), fold_test = select_rows(train, out);
    const std::optional<HeldOutFit> fitted =
        fit_and_predict(p, registry, fold_train, fold_test, centres, basis, penalty.get(),
                        output_seed, threads, input_model, selection_cache_bytes);
    if (!fitted) return {};
    const Matrix& outputs = fitted->outputs;
    const std::shared_ptr<OutputLayer>& output = fitted->output;
    const Metrics m = compute_metrics(outputs, fitted->model.link, fold_test);
    // m is over all ranks' held-out rows (compute_metrics sums them), so every rank agrees.
    // A layer that declares its own error is scored by it (every rank's layer does alike).
    if (const auto own = output->held_out_error(outputs, fold_test)) {
      error += sum_over_ranks(own->sum);
      metric = own->name;
    } else {
      error += (classes ? *m.error_rate : m.mse) * double(m.rows);
    }
    tie += m.cross_entropy.value_or(m.mse) * double(m.rows);
    rows += m.rows;
  }
  return {error / double(rows), tie / double(rows), k, metric};
}

// What a pipeline leaves to "choose", and the parameters chosen: each found by the role its
// component declares (ParamRole), never by its name.
struct Wants {
  bool scale = false;        // the basis's WidthScale
  bool alpha = false;        // the weight penalty's RidgeStrength
  bool add_penalty = false;  // no penalty named: default_ridge_penalty with a chosen strength
  bool count = false;        // the centre learner's CentreCount
  std::string scale_param;   // the basis's WidthScale parameter, or empty
  std::string count_param;   // the centre learner's CentreCount parameter, or empty
  // The ridge the closed form's path is fitted with (the pipeline's penalty when it is one,
  // else default_ridge_penalty) and its RidgeStrength parameter; set when alpha or
  // add_penalty.
  std::string penalty;
  std::string strength_param;
  // The strength of the pipeline's penalty (its RidgeStrength or PenaltyStrength), or empty.
  std::string given_strength;

  // "weight-penalty.alpha", ...: the key of a chosen value in reports.
  std::string scale_key() const { return "basis." + scale_param; }
  std::string count_key() const { return "centres." + count_param; }
  std::string alpha_key() const { return "weight-penalty." + strength_param; }
};

// The candidates: penalties (relative to the Gram's mean eigenvalue unless given), width
// scales and centre counts. A penalty the pipeline gives is the one value of its axis.
struct Grids {
  std::vector<double> lambdas = default_lambda_factors();
  bool relative = true;
  std::vector<double> scales{1.0};
  std::string scale_param;  // the basis's parameter the scales are values of (WidthScale)
  std::vector<std::size_t> counts{0};
};

Grids selection_grids(const Pipeline& p, const Wants& wants, const Dataset& train) {
  Grids g;
  g.scale_param = wants.scale_param;
  if (!wants.alpha && !wants.add_penalty) {
    // A penalty the pipeline gives: its strength as weight decay's (a non-ridge one's too,
    // PenaltyStrength); none, or one without a strength: (nearly) no penalty.
    const Params* wp = p.weight_penalty ? &p.weight_penalty->params : nullptr;
    if (wp && !wants.given_strength.empty() && wp->has(wants.given_strength)) {
      g.lambdas = {wp->real(wants.given_strength)};
      g.relative = false;
    } else {
      g.lambdas = {1e-12};  // no penalty: (nearly) the plain least-squares fit
    }
  }
  if (wants.scale) g.scales = width_scale_grid();
  if (wants.count) {
    const std::size_t rows = count_over_ranks(train.rows());
    const std::size_t base = auto_centre_count(rows, centre_count_classes(train));
    g.counts.clear();
    // At most the auto count's cap (the preconditioner of the iterative solve holds M^2).
    const std::size_t cap = auto_centre_count(std::numeric_limits<std::size_t>::max() / 4,
                                              centre_count_classes(train));
    for (const std::size_t c : {base / 4, base / 2, base, 2 * base, 4 * base}) {
      const std::size_t clamped =
          std::clamp<std::size_t>(std::min(c, cap), 1, std::max<std::size_t>(rows, 1));
      if (std::find(g.counts.begin(), g.counts.end(), clamped) == g.counts.end())
        g.counts.push_back(clamped);
    }
  }
  return g;
}

// A candidate's place on the grids: (count index, width position, alpha index). The width
// position is log2 of the scale plus an origin, so that it orders as the scale does and widths
// past the grid's ends (WidthPaths' extension) have places too.
using At = std::array<std::size_t, 3>;
constexpr int width_origin = 64;
std::size_t width_at(double scale) { return std::size_t(std::lround(std::log2(scale)) + width_origin); }
double width_scale_at(std::size_t at) { return std::ldexp(1.0, int(at) - width_origin); }

// How far past the grid's ends (factors of 2) the widths may go when the best so far is at an
// end: 0.25 / 2^6 to 32 x 2^6.
constexpr int width_extension = 6;

// A candidate is better on (score, tie); equal ones go to the smaller count, width and alpha,
// whatever the order they were evaluated in.
bool better(double score, double tie, At at, double b_score, double b_tie, At b_at) {
  if (score != b_score) return score < b_score;
  if (tie != b_tie) return tie < b_tie;
  return at < b_at;
}

// The best candidate so far. Classification: the leave-one-out error rate, ties to the lower
// leave-one-out squared error; regression: the leave-one-out squared error.
struct Best {
  double score = std::numeric_limits<double>::infinity();
  double tie = std::numeric_limits<double>::infinity();
  At at{0, 0, 0};
  double alpha = 0;  // the penalty at `at`
  bool width_at_end = false;  // the best width is the smallest or largest its count tried
};

// The closed-form paths of one centre count's widths, folded into `best` and the report.
// Widths are powers of 2 (width_scale_grid), named by their position (width_at).
class WidthPaths {
 public:
  WidthPaths(const Pipeline& p, const Registry& registry, const Dataset& train,
             const Matrix& targets, const Grids& grids, bool choose_scale, bool by_error_rate,
             std::size_t ci,
             const Centres& centres, std::uint64_t basis_seed, int threads, Best& best,
             SelectionReport& report, const std::function<void(const std::string&)>& log,
             const Centres* input_model, const FitCentres* refit = nullptr,
             const Pipeline* with_count = nullptr, const Dataset* scored = nullptr,
             const Matrix* scored_targets = nullptr)
      : p_(p), registry_(registry), train_(train), targets_(targets), grids_(grids),
        scored_(scored), scored_targets_(scored_targets),
        choose_scale_(choose_scale), ci_(ci), centres_(centres), refit_(refit),
        with_count_(with_count), basis_seed_(basis_seed),
        threads_(threads), classes_(train.task == Task::Classification),
        rate_(classes_ && by_error_rate), best_(best),
        report_(report), log_(log), input_model_(input_model),
        // Several widths at once, one thread each, when there are threads to spare: the
        // tridiagonal reduction is serial, so this beats giving every width all the threads. Each
        // width's path is the same bits on one thread as on many (ridge_loo.hpp). Under
        // several ranks the paths' sums over ranks must run in the same order everywhere: one
        // at a time.
        concurrent_(resolve_threads(threads) > 1 && collectives().size() == 1 && !refit) {
    for (const double scale : grids.scales) grid_.push_back(width_at(scale));
    const std::size_t extension = choose_scale ? width_extension : 0;  // width_origin > it
    lowest_ = grid_.front() - extension;
    highest_ = grid_.back() + extension;
  }

  // Evaluates the widths; true when a candidate of this count became the best.
  bool run() {
    // (A learner that uses the basis fits other centres at each width, their number too when it
    // stops by its own criterion: its leave-one-out need not fall then rise along the grid, so
    // the whole grid is scored as for classes.)
    if (rate_ || grid_.size() < 3 || refit_)
      whole_grid();
    else
      climb();
    if (kept_) best_.width_at_end = best_.at[1] == at_width_.begin()->first ||
                                    best_.at[1] == at_width_.rbegin()->first;
    return kept_;
  }

  // The grid's two middle widths alone (its one width when it has one), before run(), which
  // then evaluates only the rest: their best score.
  double middle() {
    std::vector<std::size_t> two{grid_[grid_.size() / 2]};
    if (grid_.size() > 1) two.insert(two.begin(), grid_[grid_.size() / 2 - 1]);
    const auto done = compute_batch(two);
    for (std::size_t i = 0; i < two.size(); ++i) consider(two[i], done[i]);
    return best_.score;
  }

  // Whether the whole grid goes on past an end where its best lies (true unless set).
  void set_walk_ends(bool walk) { walk_ends_ = walk; }

  // The evaluated widths (positions), best first (run() first).
  std::vector<std::size_t> ranked() const {
    std::vector<std::size_t> widths;
    for (const auto& entry : at_width_) widths.push_back(entry.first);
    std::sort(widths.begin(), widths.end(),
              [this](std::size_t a, std::size_t b) { return width_better(a, b); });
    return widths;
  }

  // With a learner that uses the basis and a chosen scale: the centres it fitted at width
  // position `width` (empty before run()).
  CentreFit take_centres(std::size_t width) {
    auto it = fitted_.find(width);
    if (it == fitted_.end()) return {};
    return std::move(it->second);
  }

 private:
  // The error rate (classes on all their centres) is scored over the whole grid: it has
  // plateaus and a second, often better, dip at large widths (digits: 24 errors at scales 1 to 4, 18 at 16),
  // which a climb from the middle misses. When the best is at an end of the grid, the widths go
  // on past it (outward) while they improve (shuttle: 0.25 at the grid's end, 1/64 past it).
  void whole_grid() {
    std::vector<std::size_t> rest;  // (middle() may have evaluated two)
    for (const std::size_t w : grid_)
      if (!at_width_.count(w)) rest.push_back(w);
    const auto done = compute_batch(rest);
    for (std::size_t i = 0; i < rest.size(); ++i) consider(rest[i], done[i]);
    top_ = grid_.front();
    for (const std::size_t w : grid_)
      if (width_better(w, top_)) top_ = w;
    if (!walk_ends_) return;
    if (top_ == grid_.front()) walk(top_, false);
    else if (top_ == grid_.back()) walk(top_, true);
  }

  // The squared error (regression, and classes on a centre subset): the width scale by a climb
  // on the log grid. The leave-one-out squared error, minimised over the penalty, falls and
  // then rises with the width (on every benchmark set, the same choice as the whole grid in
  // each fold): the two middle scales, then one step at a time towards the better, until two
  // steps in a row bring nothing better than the best so far; about five decompositions of
  // eight. The climb may go past the grid's ends.
  void climb() {
    const std::size_t lo = grid_[grid_.size() / 2 - 1], hi = grid_[grid_.size() / 2];
    const auto first = compute_batch({lo, hi});
    consider(lo, first[0]);
    consider(hi, first[1]);
    const bool up = width_better(hi, lo);
    top_ = up ? hi : lo;
    walk(top_, up);
  }

  // From `from` outward (up: larger widths), one step at a time, until two steps in a row bring
  // nothing better than the best so far or the extension's end. With a core to spare the next
  // two steps are computed at once; the second is considered only if the walk goes on after the
  // first, so the choice and the report are those of the one-at-a-time walk.
  void walk(std::size_t from, bool up) {
    std::vector<std::size_t> ahead;  // the widths still to come, in order
    if (up) {
      for (std::size_t w = from + 1; w <= highest_; ++w)
        if (!at_width_.count(w)) ahead.push_back(w);
    } else {
      for (std::size_t w = from; w-- > lowest_;)
        if (!at_width_.count(w)) ahead.push_back(w);
    }
    std::size_t misses = 0;
    for (std::size_t next = 0; next < ahead.size() && misses < 2;) {
      const std::size_t take = concurrent_ ? std::min<std::size_t>(2, ahead.size() - next) : 1;
      const std::vector<std::size_t> which(ahead.begin() + std::ptrdiff_t(next),
                                           ahead.begin() + std::ptrdiff_t(next + take));
      const auto done = compute_batch(which);
      for (std::size_t i = 0; i < which.size() && misses < 2; ++i, ++next) {
        consider(which[i], done[i]);
        if (width_better(which[i], top_)) {
          top_ = which[i];
          misses = 0;
        } else {
          ++misses;
        }
      }
    }
  }

  // One width's closed-form path on `inner` threads: no shared state is touched, so several
  // widths may run at once.
  std::pair<std::size_t, RidgePath> evaluate(std::size_t width, int inner,
                                             std::size_t cache_bytes) const {
    Params bp = p_.basis.params;
    if (choose_scale_) bp.set(grids_.scale_param, width_scale_at(width));
    Centres centres = centres_;
    if (refit_) {
      // A learner that uses the basis: its centres depend on the width, so they are fitted at
      // this width (with this scale in its CandidateBasis) and carry their widths, which the
      // design keeps (keep_centre_widths). Never concurrent (concurrent_ is false).
      if (choose_scale_) {
        Pipeline q = *with_count_;
        q.basis.params = bp;
        CentreFit fit = (*refit_)(q, nullptr);
        centres = fit.centres;
        fitted_[width] = std::move(fit);
      }
      bp = keep_centre_widths(bp);
    }
    const std::shared_ptr<Basis> basis = registry_.make_basis(p_.basis.plugin, bp);
    FitContext bctx(basis_seed_, inner);
    basis->prepare(centres, bctx);
    DesignMatrix design(train_.inputs, centres, *basis, false, cache_bytes);
    design.set_input_model(input_model_);
    design.set_threads(inner);
    const std::optional<Matrix> metric =
        penalty_metric(p_, registry_, centres, *basis, design.cols());
    std::optional<DesignMatrix> scored;
    if (scored_) {
      scored.emplace(scored_->inputs, centres, *basis, false, cache_bytes);
      scored->set_input_model(input_model_);
      scored->set_threads(inner);
    }
    return std::make_pair(centres.count(),
                          ridge_loo_path(design, targets_, grids_.lambdas, grids_.relative,
                                         classes_, metric ? &*metric : nullptr,
                                         scored ? &*scored : nullptr, scored_targets_));
  }

  std::vector<std::pair<std::size_t, RidgePath>> compute_batch(
      const std::vector<std::size_t>& which) const {
    std::vector<std::pair<std::size_t, RidgePath>> done(which.size());
    if (which.size() > 1 && concurrent_) {
      const std::size_t at_once =
          std::min<std::size_t>(which.size(), std::size_t(resolve_threads(threads_)));
      parallel_for_blocks(which.size(), 1, threads_, [&](std::size_t, const RowBlock& b) {
        done[b.index] = evaluate(which[b.index], 1, selection_cache_bytes / at_once);
      });
    } else {
      for (std::size_t i = 0; i < which.size(); ++i)
        done[i] = evaluate(which[i], threads_, selection_cache_bytes);
    }
    return done;
  }

  // Folds one evaluated width into the choice, the log and the report (grid order within a
  // batch, so the outcome never depends on which width finished first).
  void consider(std::size_t width, const std::pair<std::size_t, RidgePath>& done) {
    const auto& [count, path] = done;
    const double scale = width_scale_at(width);
    std::pair<double, double> width_best{std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::infinity()};
    for (std::size_t l = 0; l < path.loo.size(); ++l) {
      const double score = rate_ ? path.loo_error[l] : path.loo[l];
      if (better(score, path.loo[l], {0, 0, l}, width_best.first, width_best.second,
                 {0, 0, path.loo.size()}))
        width_best = {score, path.loo[l]};
      if (better(score, path.loo[l], {ci_, width, l}, best_.score, best_.tie, best_.at)) {
        best_ = Best{score, path.loo[l], {ci_, width, l}, path.lambdas[l]};
        kept_ = true;
      }
    }
    if (log_) {
      const std::vector<double>& scores = rate_ ? path.loo_error : path.loo;
      log_("select: " + std::to_string(count) + " centres, width_scale " +
           text::number(scale) + ": leave-one-out " + (rate_ ? "error rate " : "") +
           text::number(*std::min_element(scores.begin(), scores.end())));
    }
    report_.curves.push_back(SelectionCurve{count, scale, path.lambdas, path.loo,
                                            path.loo_error, path.gcv, path.dof});
    at_width_[width] = width_best;
  }

  // Width a's best (score, tie) over the penalties beats width b's.
  bool width_better(std::size_t a, std::size_t b) const {
    const auto& wa = at_width_.at(a);
    const auto& wb = at_width_.at(b);
    return better(wa.first, wa.second, {0, a, 0}, wb.first, wb.second, {0, b, 0});
  }

  const Pipeline& p_;
  const Registry& registry_;
  const Dataset& train_;
  const Matrix& targets_;
  const Grids& grids_;
  const Dataset* scored_;          // the rows the leave-one-out is summed over (null: all)
  const Matrix* scored_targets_;
  bool choose_scale_;
  std::size_t ci_;
  const Centres& centres_;
  const FitCentres* refit_;       // a learner that uses the basis: its fit, else null
  const Pipeline* with_count_;    // the pipeline of this count (refit_ only)
  mutable std::map<std::size_t, CentreFit> fitted_;  // refit_ and choose_scale_: per width
  std::uint64_t basis_seed_;
  int threads_;
  bool classes_;
  bool rate_;  // classes scored by the leave-one-out error rate (else the squared error)
  Best& best_;
  SelectionReport& report_;
  const std::function<void(const std::string&)>& log_;
  const Centres* input_model_;
  std::vector<std::size_t> grid_;     // the grid's widths, ascending
  std::size_t lowest_ = 0, highest_ = 0;  // how far the walks may go
  // Each evaluated width's best (score, tie) over the penalties.
  std::map<std::size_t, std::pair<double, double>> at_width_;
  std::size_t top_ = 0;  // the best width of this count
  bool walk_ends_ = true;
  bool concurrent_;
  bool kept_ = false;
};

// Outputs of another error than least squares (irls, scg, bfgs): the closed form proposes
// `proposed`; the layer's own error decides, by 5-fold CV of the output layer alone on the
// chosen centres and widths (computed once, shared by every fit), over alpha x 3^k from large
// to small, stopped after two in a row no better than the best. Returns the chosen alpha.
double cross_validated_alpha(const Pipeline& p, const Registry& registry, const Dataset& train,
                             const Pipeline& chosen, const Centres& chosen_centres,
                             const Wants& wants, double proposed, std::uint64_t fold_seed,
                             std::uint64_t basis_seed, std::uint64_t output_seed, int threads,
                             SelectionReport& report,
                             const std::function<void(const std::string&)>& log,
                             const Centres* input_model) {
  const bool classes = train.task == Task::Classification;
  const std::size_t total_rows = count_over_ranks(train.rows());
  const std::size_t folds = std::min<std::size_t>(5, total_rows);
  if (folds < 2) return proposed;
  const std::shared_ptr<Basis> basis =
      registry.make_basis(chosen.basis.plugin, chosen.basis.params);
  Centres centres = chosen_centres;
  FitContext bctx(basis_seed, threads);
  basis->prepare(centres, bctx);
  const auto fold_of = assign_folds(train, folds, classes, cv_folds_seed(fold_seed));
  const std::string plugin = wants.alpha ? p.weight_penalty->plugin : wants.penalty;
  Params penalty_params;
  if (const ComponentInfo* info = registry.find(Slot::WeightPenalty, plugin))
    penalty_params = validate_params(info->params, {}, "plugin " + plugin);
  if (wants.alpha) penalty_params = p.weight_penalty->params;
  report.path_metric = classes ? "error_rate" : "mse";
  report.path_folds = folds;
  double best_error = std::numeric_limits<double>::infinity(), best_tie = best_error;
  double path_alpha = proposed;
  std::size_t worse = 0, best_index = 0;
  for (int power = 3; power >= -3 && worse < 2; --power) {
    const double alpha = proposed * std::pow(3.0, power);
    penalty_params.set(wants.strength_param, alpha);
    const PathPoint point =
        cross_validated(p, registry, train, centres, basis, plugin, penalty_params, fold_of,
                        folds, output_seed, threads, best_error * double(total_rows),
                        input_model);
    if (!point.metric.empty()) report.path_metric = point.metric;
    report.path_alphas.push_back(alpha);
    report.path_errors.push_back(point.error);
    report.path_fitted_folds.push_back(point.folds);
    const bool improved = point.folds == folds &&  // a stopped (hopeless) one never wins
                          (point.error < best_error ||
                           (point.error == best_error && point.tie < best_tie));
    if (improved) {
      best_error = point.error;
      best_tie = point.tie;
      path_alpha = alpha;
      best_index = report.path_alphas.size() - 1;
      worse = 0;
    } else {
      ++worse;
    }
    if (log)
      log("select: " + p.output.plugin + " with " + wants.strength_param + " " +
          text::number(alpha) + ": " +
          std::to_string(folds) + "-fold " + report.path_metric + " " +
          text::number(point.error));
  }
  if (best_index == 0 || (best_index + 1 == report.path_alphas.size() && worse < 2))
    report.edges.push_back(wants.alpha_key());
  return path_alpha;
}

// Writes the chosen penalty into `chosen` (a default_ridge_penalty table when none was named).
void set_penalty(const Pipeline& p, const Registry& registry, const Wants& wants, double alpha,
                 Pipeline& chosen, SelectionReport& report) {
  if (wants.alpha) {
    chosen.weight_penalty->params.set(wants.strength_param, alpha);
  } else {
    const ComponentInfo& info = registry.require(Slot::WeightPenalty, wants.penalty);
    chosen.weight_penalty =
        ComponentSpec{wants.penalty,
                      validate_params(info.params, {{wants.strength_param, alpha}},
                                      "plugin " + wants.penalty),
                      p.basis.where, to_string(Slot::WeightPenalty)};
    report.penalty_added = true;
  }
  report.chosen.push_back({wants.alpha_key(), alpha});
}

// What `p` leaves to "choose", each value found by the role its component declares.
// `basis`: the basis's capabilities. Refuses "choose" on a parameter of a weight penalty that
// is not its ridge strength: only a ridge's strength is on the closed form's path.
Wants wanted(const Pipeline& p, const Registry& registry, const Capabilities& basis) {
  Wants wants;
  if (const ParamSpec* scale =
          find_role(registry.require(Slot::Basis, p.basis.plugin).params, ParamRole::WidthScale))
    wants.scale_param = scale->name;
  if (const ParamSpec* count = find_role(
          registry.require(Slot::Centres, p.centres.plugin).params, ParamRole::CentreCount))
    wants.count_param = count->name;
  wants.scale = basis.width_scale_selectable && !wants.scale_param.empty();
  if (p.weight_penalty) {
    const ComponentSpec& penalty = *p.weight_penalty;
    const ParamTable& table = registry.require(Slot::WeightPenalty, penalty.plugin).params;
    const ParamSpec* ridge = find_role(table, ParamRole::RidgeStrength);
    const ParamSpec* strength = ridge ? ridge : find_role(table, ParamRole::PenaltyStrength);
    if (strength) wants.given_strength = strength->name;
    for (const ParamSpec& spec : table) {
      const std::string& name = spec.name;
      const bool may_choose =
          std::find(spec.words.begin(), spec.words.end(), "choose") != spec.words.end();
      if (!may_choose || !is_choose(penalty.params, name) || (ridge && name == ridge->name))
        continue;
      throw InputError(
          penalty.where.str() + ": " + to_string(Slot::WeightPenalty) + "." + name +
          " = \"choose\", but weight-penalty plugin '" + penalty.plugin + "' is not a ridge" +
          (ridge ? " in " + name + " (its ridge strength is " + ridge->name + ")"
                 : " (it declares no ridge strength)") +
          ": the closed-form leave-one-out sweeps only a ridge's strength; give " + name +
          " a number, or use a ridge penalty (" +
          plugins_declaring(registry, ParamRole::RidgeStrength) + ")");
    }
    if (ridge && is_choose(penalty.params, ridge->name)) {
      wants.alpha = true;
      wants.penalty = penalty.plugin;
      wants.strength_param = ridge->name;
    }
  }
  // The defaults never fit an unpenalised system: a pipeline without a weight penalty gets
  // default_ridge_penalty with a chosen strength when its width scale is chosen, and also when
  // its widths are the centre learner's shapes as they are (width_rule = "shapes", the
  // framework's width parameter, radial/network/width_rule.hpp), whose scale is not the trainer's to
  // choose but whose penalty still is.
  const auto rule = p.basis.params.values().find("width_rule");
  const bool learned_shapes = rule != p.basis.params.values().end() &&
                              std::holds_alternative<std::string>(rule->second) &&
                              std::get<std::string>(rule->second) == "shapes";
  wants.add_penalty = !p.weight_penalty && (wants.scale || learned_shapes);
  wants.count = !wants.count_param.empty() && is_choose(p.centres.params, wants.count_param);
  return wants;
}

// The ridge added when the pipeline names no penalty: default_ridge_penalty, with the strength
// parameter it declares.
void add_default_ridge(const Pipeline& p, const Registry& registry, Wants& wants) {
  const ComponentInfo* info = registry.find(Slot::WeightPenalty, default_ridge_penalty);
  const ParamSpec* ridge = info ? find_role(info->params, ParamRole::RidgeStrength) : nullptr;
  if (!ridge)
    throw InputError(p.file.string() + ": the width is chosen, and with it a " +
                     default_ridge_penalty + " penalty, but the plugin " + default_ridge_penalty +
                     (info ? " declares no ridge strength" : " is not installed") +
                     "; name a [weight-penalty] or give " +
                     (wants.scale ? wants.scale_key() : std::string("the basis width")) +
                     " a number");
  wants.penalty = default_ridge_penalty;
  wants.strength_param = ridge->name;
}

// The rows the values are chosen on: all of them up to selection_sample_rows, else a sample of
// about that many, each row kept with probability n / N by a hash of its seed and its row number
// in the whole data (so the same rows under any number of ranks, with no gather, and each class
// in proportion in expectation). The penalty chosen on it is used as it is on all the rows: it
// is the precision of the weights' prior, which does not grow with the rows (as the 5-fold
// path's alpha, chosen on 4/5 of them, is used on all).
struct SelectionRows {
  std::optional<Dataset> sample;  // empty: every row
  std::size_t rows = 0;           // over all ranks
};

SelectionRows selection_rows(const Dataset& train, std::uint64_t seed, std::size_t target) {
  SelectionRows s;
  const std::size_t total = count_over_ranks(train.rows());
  s.rows = total;
  if (total <= target) return s;
  const std::size_t first = collectives().size() > 1 ? shard_layout(train.rows()).first : 0;
  s.sample = select_rows(train, sample_rows(train.rows(), first, total, target, seed));
  s.rows = count_over_ranks(s.sample->rows());
  return s;
}


// With a centre subset, the rows each width's leave-one-out is summed over: a seeded sample of
// about selection_scored_rows of the selection's rows (none: all of them).
struct ScoredRows {
  std::optional<Dataset> rows;
  Matrix targets;
};

ScoredRows scored_rows(const Dataset& rows, std::uint64_t fold_seed) {
  ScoredRows scored;
  SelectionRows s =
      selection_rows(rows, derive_seed(fold_seed, selection_scored_stream), selection_scored_rows);
  if (s.sample) {
    scored.rows = std::move(s.sample);
    scored.targets = targets_for(Link::Identity, *scored.rows);
  }
  return scored;
}

// The criterion and the rows in the report. With a centre subset, classes too are scored by the
// LOO squared error (`by_error_rate` false): the error rate's minimum jumps between samples
// (issue 45's generator, N = 20,000: width scale 1 on 20,000 rows, 2 on 12,000), the squared
// error's stays put and carries to all the centres.
void report_rows(const Dataset& train, const SelectionRows& on, const ScoredRows& scored,
                 bool by_error_rate, SelectionReport& report,
                 const std::function<void(const std::string&)>& log) {
  report.criterion = by_error_rate ? "loo-error" : "loo";
  report.rows = on.rows;
  report.sample_of = on.sample ? count_over_ranks(train.rows()) : 0;
  report.scored_rows = scored.rows ? count_over_ranks(scored.rows->rows()) : on.rows;
  if (log && on.sample)
    log("select: on a sample of " + std::to_string(on.rows) + " of the " +
        std::to_string(report.sample_of) + " training rows");
}

// The count curve's rows: a seeded hold-out of min(N / 5, count_curve_held_out) of all the
// training rows, and for each count at most count_curve_rows_per_centre rows per centre of the
// rest (all of them when N is small), so that no count is judged on fewer rows than it needs
// nor with centres that saw the rows that score it. Nested samples of one hash (sample_rows),
// so the same rows under any number of ranks.
constexpr std::size_t count_curve_held_out = 50000;
constexpr std::size_t count_curve_rows_per_centre = 32;
constexpr std::uint64_t count_curve_stream = 9;

struct HeldOutScore {
  double error = std::numeric_limits<double>::quiet_NaN();  // error rate (classes) or MSE
  double standard_error = 0;
  std::size_t rows = 0;  // held-out rows over all ranks
};

// The network on `centres` and `basis`, its weights fitted by the output layer on `fit`, scored
// on `held`: the error rate with its binomial standard error for classes, the MSE with the
// standard error of the rows' squared errors for regression. NaN when the fit failed.
HeldOutScore held_out_score(const Pipeline& p, const Registry& registry, const Dataset& fit,
                            const Dataset& held, const Centres& centres,
                            const std::shared_ptr<Basis>& basis, const WeightPenalty* penalty,
                            std::uint64_t output_seed, int threads, const Centres* input_model) {
  const std::optional<HeldOutFit> fitted = fit_and_predict(
      p, registry, fit, held, centres, basis, penalty, output_seed, threads, input_model, 0);
  if (!fitted) return {};
  const Matrix& outputs = fitted->outputs;
  const Metrics m = compute_metrics(outputs, fitted->model.link, held);  // over all ranks
  HeldOutScore score;
  score.rows = m.rows;
  if (m.rows == 0) return {};
  const double n = double(m.rows);
  if (held.task == Task::Classification) {
    score.error = *m.error_rate;
    score.standard_error = std::sqrt(score.error * (1 - score.error) / n);
  } else {
    // The squared errors' second moment, summed over ranks as compute_metrics sums the first.
    const Matrix t = targets_for(Link::Identity, held);
    std::vector<double> sums{0.0};
    for (std::size_t r = 0; r < outputs.shape(0); ++r) {
      double e = 0;
      for (std::size_t k = 0; k < outputs.shape(1); ++k)
        e += (outputs(r, k) - t(r, k)) * (outputs(r, k) - t(r, k));
      if (std::isfinite(e)) sums[0] += e * e;
    }
    sum_pass_over_ranks(sums, nullptr);
    score.error = m.mse;
    score.standard_error = std::sqrt(std::max(0.0, sums[0] / n - m.mse * m.mse) / n);
  }
  return score;
}

// The penalty the curve's networks are fitted with: the pipeline's (its strength the chosen
// alpha when chosen), or the added ridge with the chosen alpha, or none.
std::shared_ptr<WeightPenalty> curve_penalty(const Pipeline& p, const Registry& registry,
                                             const Wants& wants, double alpha) {
  if (!p.weight_penalty && !wants.add_penalty) return nullptr;
  const std::string plugin = p.weight_penalty ? p.weight_penalty->plugin : wants.penalty;
  Params params;
  if (p.weight_penalty) params = p.weight_penalty->params;
  else if (const ComponentInfo* info = registry.find(Slot::WeightPenalty, plugin))
    params = validate_params(info->params, {}, "plugin " + plugin);
  if (wants.alpha || wants.add_penalty) params.set(wants.strength_param, alpha);
  return registry.make_weight_penalty(plugin, params);
}

// centres.count = "choose" above selection_centres centres: a validation curve on all the
// training rows (count_curve_held_out). Each count's network (its own centres fitted on its
// rows, the width chosen on `subset` carried to them, the chosen alpha) is fitted by the output
// layer and scored on the hold-out. The counts are tried in increasing order until one fails
// to lower the error by more than one standard error of the best, and the smallest count
// within one standard error of the best wins (the one-standard-error rule of Breiman et al.
// 1984: a count must earn its cost); its centres are then fitted on every row into `fitted`.
// Returns its index in `counts`.
std::size_t validated_count(const Pipeline& p, const Registry& registry, const Dataset& train,
                            const std::vector<std::size_t>& counts, const Wants& wants,
                            const Centres& subset, double subset_scale, double alpha,
                            bool density, const FitCentres& fit_centres, CentreFit& fitted,
                            std::uint64_t fold_seed, std::uint64_t output_seed, int threads,
                            SelectionReport& report,
                            const std::function<void(const std::string&)>& log,
                            const Centres* input_model) {
  const bool classes = train.task == Task::Classification;
  const std::size_t total = count_over_ranks(train.rows());
  const std::size_t first = collectives().size() > 1 ? shard_layout(train.rows()).first : 0;
  const std::uint64_t seed = derive_seed(fold_seed, count_curve_stream);
  const std::size_t held_target = std::min(total / 5, count_curve_held_out);
  const std::vector<std::size_t> held_rows =
      sample_rows(train.rows(), first, total, held_target, seed);
  const Dataset held = select_rows(train, held_rows);
  report.count_curve_held_out = count_over_ranks(held.rows());
  const double on_subset = common_variance(p, density, subset);
  std::vector<HeldOutScore> scores;
  std::size_t best = 0;  // the lowest error so far
  for (std::size_t ci = 0; ci < counts.size(); ++ci) {
    // This count's rows: those of the nested sample past the hold-out's (the hold-out's rows
    // are the sample's first held_target / total of the hash's range).
    const std::size_t fit_target =
        std::min(total, held_target + count_curve_rows_per_centre * counts[ci]);
    const std::vector<std::size_t> kept =
        sample_rows(train.rows(), first, total, fit_target, seed);
    std::vector<std::size_t> fit_rows;
    std::set_difference(kept.begin(), kept.end(), held_rows.begin(), held_rows.end(),
                        std::back_inserter(fit_rows));
    const Dataset rows = select_rows(train, fit_rows);
    Pipeline with_count = p;
    with_count.centres.params.set(wants.count_param, std::int64_t(counts[ci]));
    Centres centres = fit_centres(with_count, &rows).centres;
    Params bp = p.basis.params;
    if (wants.scale) {
      const double on_all = common_variance(p, density, centres);
      bp.set(wants.scale_param,
             subset_scale * (on_subset > 0 && on_all > 0 ? on_subset / on_all : 1.0));
    }
    const std::shared_ptr<Basis> basis = registry.make_basis(p.basis.plugin, bp);
    FitContext bctx(output_seed, threads);
    basis->prepare(centres, bctx);
    // The subset's alpha carried to this count as to the final fit's (carry_to_all).
    const double carried =
        total <= selection_sample_rows
            ? alpha * double(subset.count()) / double(std::max<std::size_t>(centres.count(), 1))
            : alpha;
    const std::shared_ptr<WeightPenalty> penalty = curve_penalty(p, registry, wants, carried);
    if (penalty) penalty->prepare(centres, *basis);
    const HeldOutScore score = held_out_score(p, registry, rows, held, centres, basis,
                                              penalty.get(), output_seed, threads, input_model);
    scores.push_back(score);
    report.count_curve_counts.push_back(counts[ci]);
    report.count_curve_errors.push_back(score.error);
    report.count_curve_standard_errors.push_back(score.standard_error);
    report.count_curve_rows.push_back(count_over_ranks(rows.rows()));
    if (log)
      log("select: " + std::to_string(counts[ci]) + " centres on " +
          std::to_string(report.count_curve_rows.back()) + " rows: held-out " +
          (classes ? "error rate " : "mse ") + text::number(score.error) + " +- " +
          text::number(score.standard_error));
    if (!std::isfinite(score.error)) continue;
    const HeldOutScore& b = scores[best];
    if (!std::isfinite(b.error) || score.error < b.error) {
      const bool earned = !std::isfinite(b.error) || score.error < b.error - b.standard_error;
      best = ci;
      if (!earned && ci > 0) break;  // better, but by less than its noise
    } else if (ci > 0) {
      break;  // no better: larger counts are not tried
    }
  }
  if (!std::isfinite(scores[best].error))
    throw NumericalError(p.file.string() + ": no centre count gave a finite validation error; "
                         "give " + wants.count_key() + " a number");
  std::size_t chosen = best;
  for (std::size_t ci = 0; ci < best; ++ci)
    if (scores[ci].error <= scores[best].error + scores[best].standard_error) {
      chosen = ci;
      break;
    }
  Pipeline with_count = p;
  with_count.centres.params.set(wants.count_param, std::int64_t(counts[chosen]));
  fitted = fit_centres(with_count, nullptr);
  return chosen;
}
}  // namespace

std::vector<double> width_scale_grid() { return {0.25, 0.5, 1, 2, 4, 8, 16, 32}; }

std::string plugins_that(const Registry& registry, Slot slot,
                         bool (*has)(const Capabilities& capabilities)) {
  std::string ids;
  for (const std::string& id : registry.ids(slot)) {
    const ComponentInfo& info = registry.require(slot, id);
    try {
      if (has(registry.capabilities(slot, id, validate_params(info.params, {}, "plugin " + id))))
        ids += (ids.empty() ? "" : ", ") + id;
    } catch (const Error&) {
      // A plugin without defaults for every parameter (a required one) is not suggested.
    }
  }
  return ids.empty() ? "none is loaded" : ids;
}

std::string plugins_declaring(const Registry& registry, ParamRole role) {
  std::string ids;
  for (const ComponentInfo* info : registry.components())
    if (find_role(info->params, role)) ids += (ids.empty() ? "" : ", ") + info->id;
  return ids.empty() ? "none is loaded" : ids;
}

namespace {

// The RKHS norm may be the added penalty: the plugin is installed and the basis is a Gaussian
// activation with one common width (the rules auto, nearest, max-distance), so that K_MM is a
// positive definite kernel's Gram.
bool rkhs_addable(const Pipeline& p, const Capabilities& basis, const Registry& registry) {
  const ComponentInfo* norm = registry.find(Slot::WeightPenalty, default_norm_penalty);
  if (!basis.gaussian_activation || !norm || !find_role(norm->params, ParamRole::RidgeStrength))
    return false;
  const auto rule = p.basis.params.values().find("width_rule");
  if (rule == p.basis.params.values().end()) return true;
  if (!std::holds_alternative<std::string>(rule->second)) return false;
  const std::string& name = std::get<std::string>(rule->second);
  return name == "auto" || name == "nearest" || name == "max-distance";
}

}  // namespace

namespace {

// Refuses "choose" where the closed form cannot serve (a polynomial term; an output layer
// without weights on the design, for alpha or count); false when there is nothing to choose
// (such an output layer with only a width to choose).
bool choosable(const Pipeline& p, const Registry& registry, const Wants& wants,
               const Capabilities& output) {
  const std::int64_t degree = polynomial_degree(p.basis.params.values());
  if (degree >= 0)
    throw InputError(p.file.string() + ": " +
                     (wants.alpha ? wants.alpha_key() : wants.count ? wants.count_key() : wants.scale_key()) +
                     " = \"choose\" is not offered with the basis's polynomial term (basis." +
                     polynomial_param + " = " + std::to_string(degree) +
                     "): the closed-form leave-one-out is that of [phi, 1] without the side "
                     "conditions; give a number");
  if (!output.selectable) {
    if (wants.alpha || wants.count)
      throw InputError(p.file.string() + ": " +
                       (wants.alpha ? wants.alpha_key() : wants.count_key()) +
                       " = \"choose\" needs an output layer that fits weights on the design (" +
                       plugins_that(registry, Slot::Output,
                                    [](const Capabilities& c) { return c.selectable; }) +
                       "); output plugin '" + p.output.plugin + "' has none: give a number");
    return false;
  }
  return true;
}

// The prescreen of classes on all their centres (selection.hpp): the whole grid (and past its
// ends) scored on a seeded subset of the centres by the same criterion; the scales of its
// selection_prescreen_keep best widths, ascending, for all the centres to decide between.
struct Prescreen {
  std::vector<double> scales;
  std::size_t best = 0;      // the subset's best width (position)
  bool best_at_end = false;  // ... at the end of the widths it scored
};

Prescreen prescreen_widths(const Pipeline& p, const Registry& registry, const Dataset& rows,
                           const Matrix& targets, const Grids& grids, std::size_t ci,
                           const Centres& centres, std::uint64_t fold_seed,
                           std::uint64_t basis_seed, int threads, SelectionReport& report,
                           const std::function<void(const std::string&)>& log,
                           const Centres* input_model) {
  const std::size_t all = centres.count();
  const std::size_t m = std::min(
      all, std::max(selection_prescreen_least,
                    std::size_t(std::ceil(selection_prescreen_fraction * double(all)))));
  const Centres subset = select_centres(
      centres, centre_sample(all, m, derive_seed(fold_seed, selection_prescreen_stream)));
  Best best;
  SelectionReport scored;
  const std::function<void(const std::string&)> quiet;
  WidthPaths paths(p, registry, rows, targets, grids, true, true, ci, subset, basis_seed,
                   threads, best, scored, quiet, input_model);
  paths.run();
  const std::vector<std::size_t> order = paths.ranked();
  Prescreen out;
  out.best = order.front();
  out.best_at_end = best.width_at_end;
  for (std::size_t i = 0; i < std::min(order.size(), selection_prescreen_keep); ++i)
    out.scales.push_back(width_scale_at(order[i]));
  std::sort(out.scales.begin(), out.scales.end());
  report.prescreen_centres = m;
  for (SelectionCurve& c : scored.curves) report.prescreen_curves.push_back(std::move(c));
  if (log) {
    std::string kept;
    for (const double s : out.scales) kept += (kept.empty() ? "" : ", ") + text::number(s);
    log("select: " + std::to_string(order.size()) + " width scales scored with " +
        std::to_string(m) + " of the " + std::to_string(all) + " centres; " + kept +
        " scored with all of them");
  }
  return out;
}

// The auto count's pilot (selection.hpp, selection_pilot_centres): classes fitted by least
// squares, the learner's count left to the auto rule (none given, none chosen), that count past
// selection_centres, and a learner that does not use the basis.
bool pilots(const Pipeline& p, const Wants& wants, bool subsets, bool refit, std::size_t auto_count,
            const Capabilities& output, const Dataset& train) {
  return train.task == Task::Classification && output.least_squares && subsets && !refit &&
         !wants.count && p.centres.params.has(wants.count_param) &&
         centre_count(p.centres.params, wants.count_param) == 0 &&
         auto_count > selection_centres;
}

// The pilot's network: its centres (fitted on the selection's rows), its width and penalty
// (`best`, by the leave-one-out error rate as for classes on all their centres, every row
// scored) and their curves; `suffices` when its count is the network's.
struct Pilot {
  CentreFit fitted;
  Best best;
  SelectionReport scored;
  bool suffices = false;
};

Pilot run_pilot(const Pipeline& p, const Registry& registry, const Dataset& rows,
                const Matrix& targets, const Grids& grids, const Wants& wants,
                std::size_t auto_count, const FitCentres& fit_centres, std::uint64_t basis_seed,
                int threads, SelectionReport& report,
                const std::function<void(const std::string&)>& log, const Centres* input_model) {
  Pilot pilot;
  Pipeline q = p;
  q.centres.params.set(wants.count_param, std::int64_t(selection_pilot_centres));
  pilot.fitted = fit_centres(q, &rows);
  const Centres& centres = pilot.fitted.centres;
  WidthPaths widths(p, registry, rows, targets, grids, wants.scale, true, 0, centres,
                    basis_seed, threads, pilot.best, pilot.scored, log, input_model);
  // A middle far past the worth: no width will come near it (selection_pilot_middle).
  if (widths.middle() <= selection_pilot_middle * selection_pilot_worth) widths.run();
  // The leave-one-out error rate at the chosen width and penalty.
  const double scale = width_scale_at(pilot.best.at[1]);
  double error = std::numeric_limits<double>::quiet_NaN();
  for (const SelectionCurve& c : pilot.scored.curves)
    if (c.width_scale == scale && pilot.best.at[2] < c.loo_error.size())
      error = c.loo_error[pilot.best.at[2]];
  const std::size_t n = count_over_ranks(rows.rows());
  const double standard_error =
      std::isfinite(error) ? std::sqrt(error * (1 - error) / double(n)) : 0.0;
  pilot.suffices = std::isfinite(error) && error + standard_error <= selection_pilot_worth;
  report.pilot_centres = centres.count();
  report.pilot_rows = n;
  report.pilot_error = error;
  report.pilot_standard_error = standard_error;
  report.pilot_count = pilot.suffices ? centres.count() : auto_count;
  if (log)
    log("select: " + std::to_string(centres.count()) + " centres fitted on the " +
        std::to_string(n) + " selection rows: leave-one-out error rate " + text::number(error) +
        " +- " + text::number(standard_error) + ", " +
        (pilot.suffices ? "kept (more could not save " + text::number(selection_pilot_worth) + ")"
                        : "the auto count's " + std::to_string(auto_count) + " centres"));
  return pilot;
}

// The pilot's network as the selection's choice (Pilot::suffices): its centres, width and
// penalty (chosen with all of them: nothing to carry), its curves, and its count written into
// the pipeline; the output is then fitted on every row.
void keep_pilot(Pilot& pilot, const Wants& wants, Best& best, Selected& selected) {
  const std::int64_t count = std::int64_t(pilot.fitted.centres.count());
  SelectionReport& report = selected.report;
  best = pilot.best;
  report.criterion = "loo-error";
  report.curves = std::move(pilot.scored.curves);
  report.scored_rows = report.rows;
  selected.pipeline.centres.params.set(wants.count_param, count);
  report.chosen.push_back({wants.count_key(), count});
  selected.centres = std::move(pilot.fitted);
}

// The seeded subset of selection_subset_centres of `all` the values are chosen with.
Centres centre_subset(const Centres& all, std::uint64_t fold_seed,
                      const std::function<void(const std::string&)>& log) {
  if (log)
    log("select: with " + std::to_string(selection_subset_centres) + " of the " +
        std::to_string(all.count()) + " centres");
  return select_centres(all, centre_sample(all.count(), selection_subset_centres,
                                           derive_seed(fold_seed, selection_centre_stream)));
}

// What the closed form scores. More centres than selection_centres: a subset of them, and
// fewer rows. Counts chosen with an auto count above it: only the auto count's subset is scored
// in closed form, and the counts get a validation curve (validated_count); below it, every
// count in closed form. A learner that uses the basis (OLS) fits its centres again for every
// width scale tried (radial/network/candidate_basis.hpp), each scored in closed form on all its
// centres: no subset, no validation curve (its centres are the columns of the design it chose
// them for).
struct Scope {
  std::size_t auto_count = 0;
  bool refit = false, count_curve = false, subsets = false;
};

Scope selection_scope(const Pipeline& p, const Registry& registry, const Wants& wants,
                      const Grids& grids, const Dataset& train) {
  Scope scope;
  const std::size_t total_rows = count_over_ranks(train.rows());
  scope.auto_count = expected_count(p, wants.count_param, train, total_rows);
  scope.refit = registry.capabilities(Slot::Centres, p.centres.plugin, p.centres.params).uses_basis;
  scope.count_curve = wants.count && scope.auto_count > selection_centres && !scope.refit;
  std::size_t largest = 0;
  for (const std::size_t c : grids.counts) largest = std::max(largest, c ? c : scope.auto_count);
  scope.subsets =
      !scope.refit && (scope.count_curve || (!wants.count && largest > selection_centres));
  return scope;
}

// Classes on all their centres under the RKHS norm, width scale chosen: the widths are
// prescreened on a subset of them first (the norm's alpha means the same on the subset: a
// prior over functions).
bool prescreens(const Pipeline& p, const Wants& wants, const Grids& grids, const Scope& scope,
                bool classes, std::size_t centres) {
  return classes && !scope.subsets && !scope.refit && wants.scale && p.weight_penalty &&
         p.weight_penalty->plugin == default_norm_penalty &&
         grids.scales.size() > selection_prescreen_keep && centres >= selection_prescreen_centres;
}

// With a centre subset: its size in the report, and the factor that carries the width chosen
// on it to all the centres.
void carry_to_all(const Pipeline& p, const Wants& wants, const Capabilities& basis,
                  const std::optional<Centres>& best_subset, const Centres& all_centres,
                  SelectionReport& report) {
  if (best_subset) {
    // Carried to all the centres: the same absolute width (sigma^2 = scale x the rule's
    // variance, which shrinks as centres get denser), and alpha x m / M up to
    // selection_sample_rows training rows (the same alpha beyond). The subset's alpha is
    // too large for all the centres wherever it was measured, by about their ratio (session 44,
    // the RKHS norm at the chosen width, test error with the subset's alpha -> x m / M): the
    // generator of issue 45 at N = 10,000 (m / M = 0.31) 0.1296 -> 0.1283, 20,000 (0.18)
    // 0.1386 -> 0.1352, 50,000 (0.093) 0.1210 -> 0.1200; letter (0.21) 0.0467 -> 0.0410;
    // shuttle 0.0016 -> 0.0017 and SUSY-like 10^6 rows at M = 10^4 0.2057 -> 0.2054, where
    // the smaller penalty costs more cg iterations (16 -> 34, 8 -> 15). Under weight decay too
    // (session 42: the generator at 20,000 rows, 0.135-0.136 for alpha in [1e-4, 1e-2], 0.139
    // at 0.05, the subset's 0.04-0.06), where alpha x M / m was worse (0.146 at 0.3).
    const std::size_t all = all_centres.count();
    report.centres = best_subset->count();
    report.centres_of = all;
    if (wants.scale) {
      const double on_subset = common_variance(p, basis.density, *best_subset);
      const double on_all = common_variance(p, basis.density, all_centres);
      if (on_subset > 0 && on_all > 0) report.width_transfer = on_subset / on_all;
    }
    // Up to selection_sample_rows training rows: past it the data term outweighs the penalty
    // (SUSY-like, 10^6 rows: the smaller alpha moved the error by 0.0003 and took 15 cg
    // iterations for 8; HIGGS-like at 10^7 rows would take the hour's margin).
    const std::size_t rows = report.sample_of ? report.sample_of : report.rows;
    if ((wants.alpha || wants.add_penalty) && all > 0 && rows <= selection_sample_rows)
      report.alpha_transfer = double(best_subset->count()) / double(all);
  }
}

// Writes the chosen count (`best_count` on the grid) and width scale into `chosen` and the
// report, with the edges of their grids.
void write_count_and_width(const Wants& wants, const Grids& grids, std::size_t best_count,
                           double scale, bool width_at_end, Pipeline& chosen,
                           SelectionReport& report) {
  if (wants.count) {
    chosen.centres.params.set(wants.count_param, std::int64_t(grids.counts[best_count]));
    report.chosen.push_back({wants.count_key(), std::int64_t(grids.counts[best_count])});
    if (grids.counts.size() > 1 && (best_count == 0 || best_count + 1 == grids.counts.size()))
      report.edges.push_back(wants.count_key());
  }
  if (wants.scale) {
    chosen.basis.params.set(wants.scale_param, scale);
    report.chosen.push_back({wants.scale_key(), scale});
    if (width_at_end) report.edges.push_back(wants.scale_key());
  }
}

// The chosen values as a comment in the pipeline's text, the seconds, and the log line.
void note_choices(Pipeline& chosen, SelectionReport& report,
                  std::chrono::steady_clock::time_point start,
                  const std::function<void(const std::string&)>& log) {
  if (!chosen.text.empty() && chosen.text.back() != '\n') chosen.text += '\n';
  chosen.text += "# chose by leave-one-out " + describe(report.chosen) + "\n";
  report.seconds = seconds_since(start);
  if (log) log("select: chose " + describe(report.chosen));
}

// The selection of `p` with the RKHS norm as its penalty, alpha chosen (rkhs_addable).
std::optional<Selected> select_with_norm(const Pipeline& p, const Registry& registry,
                                         const Dataset& train, std::uint64_t fold_seed,
                                         std::uint64_t basis_seed, std::uint64_t output_seed,
                                         int threads, const FitCentres& fit_centres,
                                         const std::function<void(const std::string&)>& log,
                                         const Centres* input_model) {
  // With a centre subset the added penalty is the RKHS norm alpha/2 w^T K_MM w: a prior over
  // functions, not over weights (its alpha is carried to all the centres x m / M, measured:
  // carry_to_all); and the system is FALKON's (K_nM^T K_nM + alpha K_MM), whose preconditioned
  // iteration needs a third of weight decay's passes (SUSY-like, N = 10^6, M = 10^4: 11
  // against 31). Chosen through the metric K_MM (penalty_metric).
  const ComponentInfo& norm = registry.require(Slot::WeightPenalty, default_norm_penalty);
  Pipeline with_norm = p;
  with_norm.weight_penalty = ComponentSpec{
      default_norm_penalty,
      validate_params(norm.params,
                      {{find_role(norm.params, ParamRole::RidgeStrength)->name,
                        std::string("choose")}},
                      std::string("plugin ") + default_norm_penalty),
      p.basis.where, "weight-penalty"};
  std::optional<Selected> selected =
      select_by_loo(with_norm, registry, train, fold_seed, basis_seed, output_seed, threads,
                    fit_centres, log, input_model);
  if (selected) selected->report.penalty_added = true;
  return selected;
}

}  // namespace

std::optional<Selected> select_by_loo(const Pipeline& p, const Registry& registry,
                                      const Dataset& train, std::uint64_t fold_seed,
                                      std::uint64_t basis_seed, std::uint64_t output_seed,
                                      int threads, const FitCentres& fit_centres,
                                      const std::function<void(const std::string&)>& log,
                                      const Centres* input_model) {
  const auto start = std::chrono::steady_clock::now();
  // What the components do and which parameters the selection may choose, as they declare
  // them (no instance is made to ask).
  const Capabilities basis = registry.capabilities(Slot::Basis, p.basis.plugin, p.basis.params);
  const Capabilities output =
      registry.capabilities(Slot::Output, p.output.plugin, p.output.params);
  Wants wants = wanted(p, registry, basis);
  if (!(wants.scale || wants.alpha || wants.add_penalty || wants.count)) return std::nullopt;
  if (!choosable(p, registry, wants, output)) return std::nullopt;
  if (wants.add_penalty) add_default_ridge(p, registry, wants);

  const Grids grids = selection_grids(p, wants, train);  // counts for all the rows
  const Scope scope = selection_scope(p, registry, wants, grids, train);
  const std::size_t auto_count = scope.auto_count;
  const bool refit = scope.refit, count_curve = scope.count_curve, subsets = scope.subsets;
  // The RKHS norm is added with a centre subset, and for classes fitted by least squares (their
  // widths are then prescreened on a subset: prescreen_widths).
  if (wants.add_penalty &&
      (subsets || (train.task == Task::Classification && output.least_squares)) &&
      rkhs_addable(p, basis, registry)) {
    return select_with_norm(p, registry, train, fold_seed, basis_seed, output_seed, threads,
                            fit_centres, log, input_model);
  }
  const std::size_t row_target = subsets ? selection_subset_rows : selection_sample_rows;
  const SelectionRows on =
      selection_rows(train, derive_seed(fold_seed, selection_sample_stream), row_target);
  const Dataset& rows = on.sample ? *on.sample : train;
  const Matrix targets = targets_for(Link::Identity, rows);
  const ScoredRows scored =
      subsets ? scored_rows(rows, fold_seed) : ScoredRows{};  // (selection_scored_rows)
  const bool classes = train.task == Task::Classification;
  Selected selected{p, {}, {}};
  SelectionReport& report = selected.report;
  report_rows(train, on, scored, classes && !subsets, report, log);
  Best best;
  std::optional<Centres> best_subset;  // the subset the best was chosen with, if any
  std::optional<Pilot> pilot;
  if (pilots(p, wants, subsets, refit, auto_count, output, train))
    pilot = run_pilot(p, registry, rows, targets, grids, wants, auto_count, fit_centres,
                      basis_seed, threads, report, log, input_model);
  if (pilot && pilot->suffices) keep_pilot(*pilot, wants, best, selected);
  for (std::size_t ci = 0; ci < grids.counts.size() && !(pilot && pilot->suffices); ++ci) {
    if (count_curve && grids.counts[ci] != auto_count) continue;
    Pipeline with_count = p;
    if (wants.count) with_count.centres.params.set(wants.count_param, std::int64_t(grids.counts[ci]));
    // (Refitted per width: not fitted here.)
    CentreFit fitted = refit && wants.scale ? CentreFit{} : fit_centres(with_count, nullptr);
    std::optional<Centres> subset;
    if (subsets && fitted.centres.count() > selection_centres)
      subset = centre_subset(fitted.centres, fold_seed, log);
    Grids widths_grids = grids;
    std::optional<Prescreen> pre;
    if (prescreens(p, wants, grids, scope, classes, fitted.centres.count())) {
      pre = prescreen_widths(p, registry, rows, targets, grids, ci, fitted.centres, fold_seed,
                             basis_seed, threads, report, log, input_model);
      widths_grids.scales = pre->scales;
    }
    const bool scoring = subset && scored.rows;
    WidthPaths widths(p, registry, rows, targets, widths_grids, wants.scale, !subsets, ci,
                      subset ? *subset : fitted.centres, basis_seed, threads, best, report, log,
                      input_model, refit ? &fit_centres : nullptr, &with_count,
                      scoring ? &*scored.rows : nullptr, scoring ? &scored.targets : nullptr);
    if (pre) widths.set_walk_ends(false);  // the prescreen went past the grid's ends
    if (widths.run()) {
      // At an edge only when the prescreen's best was at the end of what it scored, and kept.
      if (pre) best.width_at_end = pre->best_at_end && best.at[1] == pre->best;
      selected.centres =
          refit && wants.scale ? widths.take_centres(best.at[1]) : std::move(fitted);
      best_subset = std::move(subset);
    }
  }
  // The curves in grid order (count, then width), however they were evaluated.
  std::stable_sort(report.curves.begin(), report.curves.end(),
                   [](const SelectionCurve& a, const SelectionCurve& b) {
                     return a.count != b.count ? a.count < b.count : a.width_scale < b.width_scale;
                   });
  if (!std::isfinite(best.score))
    throw NumericalError(p.file.string() +
                         ": model selection found no candidate with a finite "
                         "leave-one-out error (every hat-matrix diagonal near 1); give the width "
                         "and penalty by hand");

  Pipeline& chosen = selected.pipeline;
  auto [best_count, best_scale, best_alpha] = best.at;
  if (count_curve && best_subset)
    best_count = validated_count(p, registry, train, grids.counts, wants, *best_subset,
                                 width_scale_at(best_scale), best.alpha, basis.density, fit_centres,
                                 selected.centres, fold_seed, output_seed, threads, report, log,
                                 input_model);
  carry_to_all(p, wants, basis, best_subset, selected.centres.centres, report);
  write_count_and_width(wants, grids, best_count, width_scale_at(best_scale) * report.width_transfer,
                        best.width_at_end, chosen, report);
  double chosen_alpha = best.alpha * report.alpha_transfer;
  Pipeline kept = chosen;  // the basis the output layer sees: keeping the centres' widths
  if (refit) kept.basis.params = keep_centre_widths(chosen.basis.params);
  if ((wants.alpha || wants.add_penalty) && !output.least_squares)
    chosen_alpha = cross_validated_alpha(p, registry, rows, kept, selected.centres.centres,
                                         wants, chosen_alpha, fold_seed, basis_seed, output_seed,
                                         threads, report, log, input_model);
  if (wants.alpha || wants.add_penalty) {
    set_penalty(p, registry, wants, chosen_alpha, chosen, report);
    if (output.least_squares && (best_alpha == 0 || best_alpha + 1 == grids.lambdas.size()))
      report.edges.push_back(wants.alpha_key());
  }
  report.score = best.score;
  report.loo = best.tie;
  note_choices(chosen, report, start, log);
  return selected;
}

}  // namespace radial::training
