// The two-stage training of every paper here (centres first, then output weights with the
// centres fixed), evaluation, and k-fold cross-validation with committees.
#include "radial/training/trainer.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <thread>
#include <time.h>

#include "radial/network/candidate_basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/glm/objective.hpp"
#include "radial/model/network.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/io/input_file.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/network/refiner.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/data/standardiser.hpp"
#include "radial/core/text.hpp"
#include "radial/core/version.hpp"
#include "search.hpp"
#include "selection.hpp"
#include "stage.hpp"
#include "user_folds.hpp"

namespace radial {
namespace {

using Clock = std::chrono::steady_clock;

// CPU seconds of the whole process (every thread) so far.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

using training::StageRunner;
using training::Stream;

// The components after the centre stage, fresh for every fit, so that fitting twice equals
// fitting once. (The kernel prior and the centre learner are made by the centre stage, which
// the selection may run several times.)
struct Components {
  std::shared_ptr<WeightPenalty> weight_penalty;
  std::shared_ptr<Basis> basis;
  std::shared_ptr<OutputLayer> output;
};

// A basis with a polynomial term (radial/core/polynomial_term.hpp) needs an output layer that
// imposes its side conditions; [refine] trains the network [phi, 1] and knows no term. Both
// refused before any data pass.
void check_polynomial_term(const Pipeline& p, const Registry& registry) {
  const std::int64_t degree = polynomial_degree(p.basis.params.values());
  if (degree < 0) return;
  const std::string where = p.file.string() + ": basis " + p.basis.plugin + " with " +
                            polynomial_param + " = " + std::to_string(degree);
  if (!registry.capabilities(Slot::Output, p.output.plugin, p.output.params).side_conditions)
    throw InputError(where + " needs an output layer that imposes the side conditions "
                     "P_c^T w = 0 of the polynomial term (OutputLayer::side_conditions); output "
                     "plugin '" + p.output.plugin + "' does not: use an output plugin that "
                     "does (" + training::plugins_that(registry, Slot::Output,
                                                       [](const Capabilities& c) {
                                                         return c.side_conditions;
                                                       }) +
                     "), or basis." + polynomial_param + " = -1");
  if (p.refine)
    throw InputError(where + ": [refine] trains the network [phi, 1] and has no polynomial "
                     "term; remove [refine] or set basis." + polynomial_param + " = -1");
}

// `basis_params`: the pipeline's, or keep_centre_widths of them when a learner that uses the
// basis gave the centres their widths (radial/network/candidate_basis.hpp).
Components make_components(const Pipeline& p, const Params& basis_params,
                           const Registry& registry) {
  Components c;
  if (p.weight_penalty) {
    c.weight_penalty =
        registry.make_weight_penalty(p.weight_penalty->plugin, p.weight_penalty->params);
  }
  c.basis = registry.make_basis(p.basis.plugin, basis_params);
  c.output = registry.make_output_layer(p.output.plugin, p.output.params);
  return c;
}

struct Fitted {
  Model model;
  std::shared_ptr<Basis> basis;
  // The model's outputs on this rank's training rows when the output layer made them
  // (OutputWeights::training_outputs) and no later stage changed the network; else empty.
  Matrix training_outputs;
  StageReport centres, basis_stage, output;
  std::optional<StageReport> refine;
  std::optional<SelectionReport> selection;
};

// The weights must suit the prediction rule the layer names: the model store checks the same
// when the model is read back.
// `penalties` are the weight-penalty plugins loaded, for the hint on non-finite weights.
void check_weights(const OutputWeights& w, std::size_t centres, std::size_t rows,
                   std::size_t classes, const std::string& plugin,
                   const std::vector<std::string>& penalties) {
  const PredictionRule* rule = find_prediction_rule(w.link.name());
  if (!rule)
    throw Error("output plugin '" + plugin + "' returned link '" + w.link.name() +
                "', but no prediction rule of that name is registered; the plugin must "
                "register it (radial/network/prediction_rule.hpp)");
  if (w.weights.dimension() != 2 || w.weights.shape(0) != rows) {
    throw Error("output plugin '" + plugin + "' returned weights of " +
                std::to_string(w.weights.shape(0)) + " rows for " + std::to_string(centres) +
                " centres (expected " + (rows == centres + 1 ? "M + 1" : "M + q") + " = " +
                std::to_string(rows) + ")");
  }
  const std::string problem = rule->check(w.weights, classes);
  if (problem.empty()) return;
  for (double v : w.weights) {
    if (!std::isfinite(v)) {
      throw NumericalError("output plugin '" + plugin +
                           "' produced non-finite weights; add a weight penalty ([weight-penalty]" +
                           (penalties.empty() ? std::string()
                                              : " plugin = \"" + penalties.front() + "\"") +
                           ") or reduce the number of centres");
    }
  }
  throw Error("output plugin '" + plugin + "' returned weights that its link '" +
              w.link.name() + "' does not accept: " + problem);
}


// Refuses, before the output stage allocates it, an output stage that needs more memory than
// is available: what the layer says it holds (OutputLayer::working_memory).
void check_output_memory(const OutputLayer& layer, const std::string& plugin,
                         const Dataset& train, std::size_t centres) {
  const std::size_t k =
      train.task == Task::Classification && train.num_classes > 2 ? train.num_classes : 1;
  const WorkingMemory need = layer.working_memory(train.rows(), centres, k);
  const std::uint64_t available = available_memory();
  if (available == 0 || need.bytes <= double(available)) return;
  char sizes[96];
  std::snprintf(sizes, sizeof sizes, "%.1f GB, more than the %.1f GB available", need.bytes / 1e9,
                double(available) / 1e9);
  throw InputError("output plugin '" + plugin + "' with K = " + std::to_string(k) +
                   " outputs and M = " + std::to_string(centres) + " centres needs about " + sizes +
                   " (" + need.what + "); use fewer centres, fewer classes" + need.remedy);
}

// The "saturated-basis" warning when nearly every activation on the training rows is at 0 or
// at 1 (a dead basis: widths far too small or too large for the distances), which would
// otherwise train silently into a rank-deficient fit. Looks at each rank's first 8192 rows: a
// dead basis is dead everywhere, and a pass over all rows of a design too large to cache would
// cost as much as a fit.
std::optional<Warning> saturation(const DesignMatrix& design, const ComponentSpec& basis,
                                  const Registry& registry) {
  const std::size_t m = design.cols() - 1;  // without the bias column
  std::vector<double> counts(3, 0.0);       // near 0, near 1, all
  std::exception_ptr failure;
  try {
    // The blocks on the design's threads, each counted on its own: whole counts, so their sum
    // is the same in any order.
    const std::size_t rows = std::min<std::size_t>(design.rows(), 8192);
    const std::size_t step = design.block_rows();
    std::vector<std::array<std::size_t, 2>> per((rows + step - 1) / step, {0, 0});
    std::vector<Matrix> blocks(worker_count(rows, step, design.threads()));
    parallel_for_blocks(rows, step, design.threads(), [&](std::size_t w, const RowBlock& b) {
      Matrix& block = blocks[w];
      design.compute_block(b.first, b.count, block);
      std::size_t zero = 0, one = 0;
      for (std::size_t r = 0; r < b.count; ++r)
        for (std::size_t j = 0; j < m; ++j) {
          const double v = block(r, j);
          zero += std::fabs(v) < 1e-8;
          one += std::fabs(v - 1.0) < 1e-8;
        }
      per[b.index] = {zero, one};
    });
    for (const auto& [zero, one] : per) {
      counts[0] += double(zero);
      counts[1] += double(one);
    }
    counts[2] = double(rows * m);
  } catch (...) {
    failure = std::current_exception();
  }
  sum_pass_over_ranks(counts, failure);
  if (!(counts[2] > 0)) return std::nullopt;
  const double dead = counts[0] / counts[2], flat = counts[1] / counts[2];
  if (dead < 0.99 && flat < 0.99) return std::nullopt;
  // The way out: the width scale the basis declares (ParamRole::WidthScale), chosen.
  const ParamSpec* scale =
      find_role(registry.require(Slot::Basis, basis.plugin).params, ParamRole::WidthScale);
  // Found by the framework before the output layer runs, about the basis.
  return Warning{
      basis.plugin, "saturated-basis",
      text::number(100 * (dead >= 0.99 ? dead : flat), 4) + "% of the basis activations on "
          "the training rows are " + (dead >= 0.99 ? "below 1e-8" : "within 1e-8 of 1") +
          ": the widths are far too " + (dead >= 0.99 ? "narrow" : "wide") +
          " for the distances between rows and centres, so the output layer sees almost "
          "no signal",
      (scale ? "basis." + scale->name + " = \"choose\", or " : std::string()) +
          "a basis width that suits the distances"};
}

// The centres the centre stage fits for pipeline `q` (its learner, and q's basis with the
// width scale the selection is trying, for a learner that uses it), on the stage's stream.
training::CentreFit fit_centres(const Pipeline& q, const Registry& registry,
                                const Dataset& train, const KernelPrior* kernel_prior,
                                const StageRunner& stages, int threads) {
  training::CentreFit out;
  const std::shared_ptr<CentreLearner> learner =
      registry.make_centre_learner(q.centres.plugin, q.centres.params);
  out.report = stages.run(Stream::centres_stream, Slot::Centres, q.centres.plugin,
                          [&](FitContext& ctx) {
    if (learner->uses_basis()) {
      // A supervised learner chooses columns of the design under q's basis; its centres
      // carry the widths they were given.
      CandidateBasis basis([&] { return registry.make_basis(q.basis.plugin, q.basis.params); },
                           threads);
      out.centres = learner->fit_on_basis(train, kernel_prior, basis, ctx);
    } else {
      out.centres = learner->fit(train, kernel_prior, ctx);
    }
  });
  return out;
}

// [data] missing = "em" with a Gaussian activation basis: the inputs' distribution, one
// full-covariance Gaussian by the missing-data EM, for the expected activation over a row's
// missing inputs given its observed ones (DesignMatrix::set_input_model), kept in the model.
// (Measured against independent columns, the Diagonal model: RESULTS.md, Missing values.)
// Empty otherwise.
Centres input_model_for(const Pipeline& p, const Registry& registry, const Dataset& train) {
  if (p.data.missing != MissingPolicy::Em ||
      !registry.capabilities(Slot::Basis, p.basis.plugin, p.basis.params).gaussian_activation)
    return {};
  // Its covariance is d x d and each pattern of missing cells solves a d x d system: refused
  // before either is made when d is past what a full covariance can serve.
  constexpr std::size_t max_inputs = 1000;
  const std::size_t d = train.features();
  if (d > max_inputs) {
    throw InputError(p.file.string() + ": [data] missing = \"em\" with the Gaussian " +
                     "activation basis '" + p.basis.plugin + "' fits one full-covariance " +
                     "Gaussian of the inputs (a " + std::to_string(d) + " x " +
                     std::to_string(d) + " covariance, " +
                     byte_count_text(std::uint64_t(d) * d * sizeof(double)) + " per copy, " +
                     "and a solve of that size per pattern of missing cells): at most " +
                     std::to_string(max_inputs) + " inputs; set missing = \"mean\" or " +
                     "\"median\", or give fewer inputs");
  }
  return fit_input_model(train.inputs, Shape::Full);
}

// The values left to "choose" (selection.hpp), chosen on the same rows and seeds as the fit.
std::optional<training::Selected> choose_values(const Pipeline& given, const Registry& registry,
                                         const Dataset& train, std::uint64_t seed,
                                         const StageRunner& stages, int threads,
                                         const training::FitCentres& centres_of,
                                         const Centres* input_model) {
  try {
    return training::select_by_loo(given, registry, train, seed,
                                   stages.seed(Stream::basis_stream),
                                   stages.seed(Stream::output_stream), threads, centres_of,
                                   stages.log(), input_model);
  } catch (const NumericalError& e) {
    // With two rows every leave-one-out fit rests on one row (each hat diagonal is 1): the data
    // are too few, the user's to change, not an internal failure.
    const std::size_t rows = count_over_ranks(train.rows());
    if (rows > 2) throw;
    throw DataError(train.source + ": " + std::to_string(rows) + " training row" +
                    (rows == 1 ? "" : "s") + " cannot choose a width or penalty by " +
                    "leave-one-out (" + e.what() + "); give at least 3 rows, or the width and " +
                    "weight penalty by hand");
  }
}

// The output stage: the output layer's weights on the design of `centres` under the prepared
// basis, checked for the layer's link and shape. `saturation` is checked first for a layer
// that fits weights on the design.
OutputWeights fit_output(const Pipeline& p, const Registry& registry, const Dataset& train,
                         const Centres& centres, Components& c, const Centres* input_model,
                         const StageRunner& stages, int threads, StageReport& report) {
  // The memory a rank has is its own: one rank short of it stops every rank.
  agreed([&] { check_output_memory(*c.output, p.output.plugin, train, centres.count()); });
  // Sharded, the GLM passes' per-block records (up to glm::fold_record_bytes) share the
  // 256 MB beyond the data with the cache of Phi, so a rank stays within its shard + 256 MB.
  constexpr std::size_t beyond_data = std::size_t(256) << 20;
  const std::size_t cache =
      collectives().size() > 1 ? beyond_data - glm::fold_record_bytes : beyond_data;
  DesignMatrix design(train.inputs, centres, *c.basis, false, cache);
  design.set_input_model(input_model);
  design.set_threads(threads);  // blocks in parallel, visited in order (bit-identical)
  std::optional<Warning> saturated;
  if (c.output->selectable()) saturated = saturation(design, p.basis, registry);
  OutputWeights weights;
  report.plugin = p.output.plugin;
  report.fit = stages.run(Stream::output_stream, Slot::Output, p.output.plugin,
                          [&](FitContext& ctx) {
    weights = c.output->fit(TrainingProblem{design, train, centres, *c.basis},
                            c.weight_penalty.get(), ctx);
  });
  if (saturated) report.fit.warnings.insert(report.fit.warnings.begin(), std::move(*saturated));
  check_weights(weights, centres.count(),
                centres.count() + (c.basis->polynomial()
                                       ? c.basis->polynomial()->columns(centres.dim())
                                       : 1),
                train.task == Task::Classification ? train.num_classes : 0, p.output.plugin,
                registry.ids(Slot::WeightPenalty));
  report.count = weights.weights.shape(1);
  stages.say("output: " + p.output.plugin + ", link " + to_string(weights.link));
  return weights;
}

// The refine stage: the whole network from the two-stage start (radial/network/refiner.hpp).
StageReport refine(const ComponentSpec& spec, const Registry& registry, const Dataset& train,
                   Centres& centres, OutputWeights& weights, const Components& c,
                   const StageRunner& stages) {
  const std::shared_ptr<Refiner> refiner = registry.make_refiner(spec.plugin, spec.params);
  RefinedNetwork refined;
  FitReport report = stages.run(Stream::refine_stream, Slot::Refine, spec.plugin,
                                [&](FitContext& ctx) {
    refined = refiner->refine(
        RefineProblem{train, *c.basis, centres, weights, c.weight_penalty.get()}, ctx);
  });
  refined.centres.check();
  if (refined.centres.count() != centres.count() || refined.centres.dim() != centres.dim() ||
      refined.weights.shape() != weights.weights.shape())
    throw Error("refine plugin '" + spec.plugin +
                "' returned a network of another size than it was given");
  centres = std::move(refined.centres);
  weights.weights = std::move(refined.weights);
  stages.say("refine: " + spec.plugin);
  return StageReport{spec.plugin, centres.count(), std::move(report)};
}

// About the largest buffer the selection held: a design of its rows and its most centres.
double selection_scratch_bytes(const SelectionReport& r) {
  std::size_t centres = std::max(r.centres_of, r.pilot_centres);
  for (const SelectionCurve& c : r.curves) centres = std::max(centres, c.count);
  for (const std::size_t c : r.count_curve_counts) centres = std::max(centres, c);
  return 8.0 * double(std::max(r.rows, r.scored_rows)) * double(centres);
}

// Fits centres, basis and output on `train` (already standardised when asked). Values left to
// "choose" are chosen first, in closed form (selection.hpp), on the same rows and seeds.
Fitted fit_network(const Pipeline& given, const Registry& registry, const Dataset& train,
                   std::uint64_t seed, int threads, const std::function<void(const std::string&)>& log) {
  // One BLAS thread for the whole fit: its passes are parallel over row blocks on `threads`
  // workers already, and a product run on OpenBLAS's own threads leaves them busy-waiting
  // (about 0.1 s) on the cores those workers need next.
  const SingleThreadedBlasScope blas;
  keep_freed_heap();  // freed buffers reused, not faulted in again (heap_policy.hpp)
  check_polynomial_term(given, registry);
  const StageRunner stages(seed, threads, log);
  std::shared_ptr<KernelPrior> kernel_prior;
  if (given.kernel_prior)
    kernel_prior = registry.make_kernel_prior(given.kernel_prior->plugin, given.kernel_prior->params);
  const training::FitCentres centres_of = [&](const Pipeline& q, const Dataset* rows) {
    return fit_centres(q, registry, rows ? *rows : train, kernel_prior.get(), stages, threads);
  };
  Centres input_model = input_model_for(given, registry, train);
  const Centres* model_of_inputs = input_model.count() != 0 ? &input_model : nullptr;
  std::optional<training::Selected> selected =
      choose_values(given, registry, train, seed, stages, threads, centres_of, model_of_inputs);
  // The selection's scratch, not kept beside the fit's, when it was large enough to matter.
  if (selected && selection_scratch_bytes(selected->report) >= kept_heap_top) release_freed_heap();
  const Pipeline& p = selected ? selected->pipeline : given;
  // Centres from a learner that saw the basis carry their widths; the network keeps them.
  const Params basis_params =
      registry.capabilities(Slot::Centres, p.centres.plugin, p.centres.params).uses_basis
          ? keep_centre_widths(p.basis.params)
          : p.basis.params;
  Components c = make_components(p, basis_params, registry);
  Fitted f;
  if (selected) f.selection = std::move(selected->report);

  training::CentreFit centre_fit = selected ? std::move(selected->centres) : centres_of(p, nullptr);
  Centres centres = std::move(centre_fit.centres);
  centres.check();
  if (centres.dim() != train.features()) {
    throw Error("centre plugin '" + p.centres.plugin + "' returned centres of dimension " +
                std::to_string(centres.dim()) + " for data with " +
                std::to_string(train.features()) + " features");
  }
  f.centres = {p.centres.plugin, centres.count(), std::move(centre_fit.report)};
  stages.say("centres: " + p.centres.plugin + ", " + std::to_string(centres.count()) + " centres");

  FitReport basis_report = stages.run(Stream::basis_stream, Slot::Basis, p.basis.plugin,
                                      [&](FitContext& ctx) { c.basis->prepare(centres, ctx); });
  centres.check();
  f.basis_stage = {p.basis.plugin, centres.count(), std::move(basis_report)};
  // The penalty sees the network it is a prior of (the RKHS norm needs the basis at the
  // centres). A refiner below keeps this one: prepared on the two-stage centres.
  if (c.weight_penalty) c.weight_penalty->prepare(centres, *c.basis);

  OutputWeights weights = fit_output(p, registry, train, centres, c, model_of_inputs, stages,
                                     threads, f.output);
  if (p.refine) f.refine = refine(*p.refine, registry, train, centres, weights, c, stages);

  Model& m = f.model;
  m.task = train.task;
  m.feature_names = train.feature_names;
  m.target_name = train.target_name;
  m.class_values = train.class_values;
  m.class_names = train.class_names;
  m.input_coding = train.coding;
  m.centres = std::move(centres);
  m.basis_id = p.basis.plugin;
  m.basis_params = basis_params.values();
  m.basis_state = c.basis->state();
  m.output_id = p.output.plugin;
  m.link = weights.link;
  m.weights = std::move(weights.weights);
  if (!p.refine) f.training_outputs = std::move(weights.training_outputs);
  m.input_model = std::move(input_model);
  m.pipeline_text = p.text;
  m.radial_version = version;
  m.seed = seed;
  // Every plugin of the pipeline as fitted: a penalty the selection added among them.
  for (const Slot slot : all_slots)
    if (const ComponentSpec* spec = p.component(slot))
      if (const ComponentInfo* info = registry.find(slot, spec->plugin))
        m.plugin_versions[info->id] = info->version;
  f.basis = std::move(c.basis);
  return f;
}

void collect_warnings(const StageReport& stage, std::vector<Warning>& out) {
  out.insert(out.end(), stage.fit.warnings.begin(), stage.fit.warnings.end());
}

// A committee member's outputs on the rows of `inputs` (raw; the model standardises them).
Matrix predict(const Fitted& f, const Matrix& raw_inputs) {
  Network net(f.model, f.basis);
  return net.predict(raw_inputs);
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

double sample_sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / double(v.size() - 1));
}

// A search's fit of one candidate on one fold, as train() would fit and test it.
training::FitAndTest fit_and_test(const Registry& registry) {
  return [&registry](const Pipeline& c, Dataset train, const Dataset& test, std::uint64_t seed,
                     int threads) {
    Standardiser s;
    if (c.data.standardize) {
      s.fit(train.inputs);
      if (c.data.nominal_scale == NominalScale::Input) s.scale_nominal_inputs(train.coding);
      s.apply(train.inputs);
    }
    Fitted f = fit_network(c, registry, train, seed, threads, nullptr);
    f.model.standardize = c.data.standardize;
    f.model.standardiser = s;
    return evaluate_metrics(f.model, f.basis, test, threads);
  };
}

CrossValidationReport cross_validate(const Pipeline& p, const Registry& registry,
                                     const Dataset& raw, std::uint64_t seed, int threads,
                                     std::vector<Warning>& warnings,
                                     const std::function<void(const std::string&)>& log,
                                     const training::UserFolds* user) {
  const EvaluateSpec& spec = p.evaluate;
  CrossValidationReport cv;
  const std::size_t folds = user ? user->count : spec.folds;
  cv.folds = folds;
  cv.committee = std::max<std::size_t>(spec.committee, 1);
  const std::size_t rows = count_over_ranks(raw.rows());  // all ranks' rows
  if (folds > rows) {
    throw InputError(p.file.string() + ": [evaluate] folds = " + std::to_string(folds) +
                     " exceeds the " + std::to_string(rows) + " training rows");
  }
  if (user && spec.folds != 0 && spec.folds != user->count) {
    throw InputError(p.file.string() + ": [evaluate] folds = " + std::to_string(spec.folds) +
                     " but the given folds hold " + std::to_string(user->count) +
                     " distinct values; omit folds or make them agree");
  }
  const auto fold_of = user ? user->fold
                            : assign_folds(raw, folds, spec.stratified && raw.task == Task::Classification,
                                           cv_folds_seed(seed));
  std::vector<double> errors, entropies, mses, r2s;
  for (std::size_t k = 0; k < folds; ++k) {
    std::vector<std::size_t> in, out;
    for (std::size_t n = 0; n < raw.rows(); ++n) (fold_of[n] == k ? out : in).push_back(n);
    Dataset fold_train = select_rows(raw, in);
    const Dataset fold_test = select_rows(raw, out);
    // Nested CV: the fold runs its own search on its raw training rows, with the seed its fit
    // has (so fold k is train() on the fold's rows with that seed).
    const Pipeline* fitted = &p;
    SearchValues chosen;
    if (p.search) {
      std::optional<training::UserFolds> inner;
      if (user) inner = training::folds_without(*user, in, k);
      const SearchReport search =
          training::run_search(p, fold_train, cv_fold_seed(seed, k), threads,
                               fit_and_test(registry), nullptr, inner ? &*inner : nullptr);
      fitted = &p.search->candidates[search.best];
      chosen = search.candidates[search.best].values;
    }
    Standardiser s;
    if (p.data.standardize) {
      s.fit(fold_train.inputs);
      if (p.data.nominal_scale == NominalScale::Input) s.scale_nominal_inputs(fold_train.coding);
      s.apply(fold_train.inputs);  // in place: the fold's raw rows are not needed again
    }

    Matrix averaged;
    Link link = Link::Identity;
    for (std::size_t m = 0; m < cv.committee; ++m) {
      const std::uint64_t member_seed =
          cv.committee == 1 ? cv_fold_seed(seed, k) : derive_seed(seed, 1000 + k * 1000 + Stream::member_stream + m);
      Fitted f = fit_network(*fitted, registry, fold_train, member_seed, threads, nullptr);
      f.model.standardize = p.data.standardize;
      f.model.standardiser = s;
      for (const StageReport* st : {&f.centres, &f.basis_stage, &f.output}) collect_warnings(*st, warnings);
      if (f.refine) collect_warnings(*f.refine, warnings);
      Matrix out_m = predict(f, fold_test.inputs);
      link = f.model.link;
      if (m == 0) averaged = std::move(out_m); else averaged += out_m;
    }
    // The committee averages posterior probabilities (or linear outputs) of its members.
    if (cv.committee > 1) averaged /= double(cv.committee);
    FoldReport fr;
    fr.fold = k;
    fr.train_rows = count_over_ranks(in.size());
    fr.test_rows = count_over_ranks(out.size());
    fr.test = compute_metrics(averaged, link, fold_test);
    fr.chosen = std::move(chosen);
    if (fr.test.error_rate) errors.push_back(*fr.test.error_rate);
    if (fr.test.cross_entropy) entropies.push_back(*fr.test.cross_entropy);
    mses.push_back(fr.test.mse);
    if (fr.test.r2) r2s.push_back(*fr.test.r2);
    if (log) {
      log("cv fold " + std::to_string(k + 1) + "/" + std::to_string(folds) +
          (fr.test.error_rate ? ": error rate " + std::to_string(*fr.test.error_rate) : ""));
    }
    cv.per_fold.push_back(std::move(fr));
  }
  cv.error_rate = mean(errors);
  cv.error_rate_sd = sample_sd(errors);
  if (entropies.size() == folds) cv.cross_entropy = mean(entropies);
  cv.mse = mean(mses);
  if (!r2s.empty() && r2s.size() == folds) cv.r2 = mean(r2s);
  return cv;
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  // SplitMix64 of the pair: well-mixed, cheap, and stable across platforms.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t cv_folds_seed(std::uint64_t seed) { return derive_seed(seed, 5); }

std::uint64_t cv_fold_seed(std::uint64_t seed, std::size_t fold) {
  return derive_seed(derive_seed(seed, 6), fold);
}

namespace {

// The fold of each of `n` rows (class_of(row) when stratified), as assign_folds describes.
template <class ClassOf>
std::vector<std::size_t> fold_assignment(std::size_t n, std::size_t folds, bool stratified,
                                         std::uint64_t seed, ClassOf class_of) {
  std::vector<std::size_t> fold(n, 0);
  if (folds < 2) return fold;
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  if (stratified) {
    // Deal each class's rows round-robin over the folds, continuing where the previous class
    // stopped, so every fold gets its share of every class and fold sizes differ by at most 1.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return class_of(a) < class_of(b);
    });
  }
  for (std::size_t i = 0; i < n; ++i) fold[order[i]] = i % folds;
  return fold;
}

}  // namespace

std::vector<std::size_t> assign_folds(const Dataset& data, std::size_t folds, bool stratified,
                                      std::uint64_t seed) {
  if (collectives().size() == 1) {
    return fold_assignment(data.rows(), folds, stratified, seed,
                           [&](std::size_t row) { return data.classes(row); });
  }
  // Sharded: every rank draws the single-process assignment of all rows (the shuffle needs only
  // the row count; stratification the class of every row, gathered as 16-bit indices since
  // there are at most max_classes) and keeps the folds of its own rows.
  const ShardLayout layout = shard_layout(data.rows());
  std::vector<std::uint16_t> classes;
  if (stratified && folds >= 2) {
    std::string mine(data.rows() * sizeof(std::uint16_t), '\0');
    for (std::size_t i = 0; i < data.rows(); ++i) {
      const std::uint16_t c = std::uint16_t(data.classes(i));
      std::memcpy(&mine[i * sizeof c], &c, sizeof c);
    }
    classes.resize(layout.total);
    std::size_t at = 0;
    for (const std::string& part : collectives().all_gather(mine)) {
      std::memcpy(classes.data() + at, part.data(), part.size());
      at += part.size() / sizeof(std::uint16_t);
    }
  }
  const std::vector<std::size_t> all = fold_assignment(
      layout.total, folds, stratified, seed, [&](std::size_t row) { return classes[row]; });
  return std::vector<std::size_t>(all.begin() + std::ptrdiff_t(layout.first),
                                  all.begin() + std::ptrdiff_t(layout.first + data.rows()));
}

Metrics evaluate_metrics(const Model& model, std::shared_ptr<const Basis> basis,
                         const Dataset& data, int threads, bool standardised) {
  // Chunks of whole 1024-row blocks of Network::predict: every row is predicted in the same
  // block, from the same rows, as by one call on all the inputs (bit-identical), and the sums
  // run row by row in order (any chunk size gives the same bits). Up to 64 blocks a chunk, and
  // at least four chunks a thread: 64 blocks left the generator's 50,000 training rows of
  // issue 45 (M = 4,311) in one chunk on one thread, 1.2 s of a 12 s fit.
  const std::size_t workers = std::size_t(std::max(1, resolve_threads(threads)));
  const std::size_t blocks = (data.rows() + parallel_block_rows - 1) / parallel_block_rows;
  const std::size_t chunk_rows =
      std::clamp<std::size_t>(blocks / (4 * workers), 1, 64) * parallel_block_rows;
  Model unstandardised;
  const Model* used = &model;
  if (standardised && model.standardize) {
    unstandardised = model;
    unstandardised.standardize = false;
    used = &unstandardised;
  }
  const Network net(*used, std::move(basis));
  MetricsAccumulator sums(used->link, data);
  const std::size_t d = data.features();
  // Sharded: rows are numbered in messages as in the whole file.
  const std::size_t first_row = collectives().size() > 1 ? shard_layout(data.rows()).first : 0;
  struct Chunk {
    Matrix inputs, outputs;
  };
  const auto pass = [&] {
    ordered_reduce<Chunk>(
        data.rows(), chunk_rows, threads, [] { return Chunk(); },
        [&](const RowBlock& b, Chunk& c) {
          if (c.inputs.shape(0) != b.count || c.inputs.shape(1) != d) c.inputs.resize({b.count, d});
          std::copy_n(data.inputs.data() + b.first * d, b.count * d, c.inputs.data());
          try {
            c.outputs = net.predict(c.inputs);
          } catch (const InputError& e) {
            // Network counts rows within this chunk; say where the chunk starts in the data.
            if (first_row + b.first == 0) throw;
            throw InputError(std::string(e.what()) + " (row 1 of this chunk is data row " +
                             std::to_string(first_row + b.first + 1) + ")");
          }
        },
        [&](const RowBlock& b, Chunk& c) { sums.add(b.first, c.outputs); });
  };
  // A row that fails on one rank stops every rank before the metrics are summed.
  agreed(pass);
  return sums.result();
}

namespace {

// The training rows' metrics: on every row, or past train_metrics_entries design entries
// (N x (M + 1), 2 GiB of doubles: where the cg output makes the design again on every pass) on
// a seeded sample of train_metrics_rows of them (the same rows under any number of ranks). A
// prediction pass over HIGGS-like 10^7 rows at M = 2 x 10^4 takes about five minutes; the
// sample's error rate is within 0.0013 of all the rows' (one standard error at 0.2).
constexpr double train_metrics_entries = double(std::size_t(1) << 28);
constexpr std::size_t train_metrics_rows = 100000;
constexpr std::uint64_t train_metrics_stream = 10;

Metrics training_metrics(const Fitted& f, const Dataset& train, std::uint64_t seed, int threads,
                         bool standardised) {
  // The output layer's own outputs on every training row, when every rank has its rows': no
  // pass at all.
  const PredictionRule* rule = find_prediction_rule(f.model.link.name());
  const Matrix& outputs = f.training_outputs;
  const bool held = rule && outputs.dimension() == 2 && outputs.shape(0) == train.rows() &&
                    outputs.shape(1) == rule->outputs(f.model.weights.shape(1));
  if (min_over_ranks(held ? 1.0 : 0.0) > 0.5) return compute_metrics(outputs, f.model.link, train);
  const std::size_t total = count_over_ranks(train.rows());
  const double entries = double(total) * double(f.model.centres.count() + 1);
  if (total <= train_metrics_rows || entries <= train_metrics_entries)
    return evaluate_metrics(f.model, f.basis, train, threads, standardised);
  const std::size_t first = collectives().size() > 1 ? shard_layout(train.rows()).first : 0;
  const Dataset sample = select_rows(
      train, sample_rows(train.rows(), first, total, train_metrics_rows,
                         derive_seed(seed, train_metrics_stream)));
  Metrics m = evaluate_metrics(f.model, f.basis, sample, threads, standardised);
  m.sample_of = total;
  return m;
}

}  // namespace

DataOptions training_data_options(const Pipeline& p) {
  DataOptions options;
  options.target = p.data.target;
  options.target_from_pipeline = true;
  options.task = p.data.task;
  options.features = p.data.features;
  options.nominal = p.data.nominal;
  options.unseen_as_zero = p.data.unseen_as_zero;
  options.allow_missing = p.data.missing != MissingPolicy::Error;
  options.threads = p.threads;  // a large CSV is parsed in parts on these threads
  return options;
}

TrainingData read_training_data(const Pipeline& p) {
  // Sharded: each rank reads its own rows of each file (the header and the class labels are
  // read by and agreed among all ranks, and so are errors).
  const bool sharded = collectives().size() > 1;
  const auto read = [sharded](const std::filesystem::path& file, const DataOptions& options) {
    return sharded ? read_dataset_shard(file, options) : read_dataset(file, options);
  };
  const DataOptions train_opts = training_data_options(p);
  TrainingData data{read(p.data.train, train_opts), std::nullopt};
  if (p.data.test) {
    DataOptions test_opts = train_opts;
    test_opts.task = data.train.task;
    test_opts.features = data.train.features();
    test_opts.coding = data.train.coding;
    if (data.train.task == Task::Classification)
      use_classes_of(test_opts, data.train.class_values, data.train.class_names);
    data.test = read(*p.data.test, test_opts);
    if (data.test->feature_names != data.train.feature_names) {
      throw DataError(p.data.test->string() + ": its columns differ from the training file's " +
                      p.data.train.string() + " (same features, same order required)");
    }
  }
  return data;
}

TrainingResult train(const Pipeline& p, const Registry& registry, const TrainOptions& options) {
  // The training rows are read once and standardised in place (no second copy: memory stays about the size of the data).
  TrainingData data = read_training_data(p);
  return train(p, registry, std::move(data.train), std::move(data.test), options);
}

// The report's first fields: the run's settings and data, the pipeline's warnings, and the
// thread count's cap (`asked` threads, `hardware` of them here).
TrainingReport start_report(const Pipeline& p, const Dataset& train_data, std::uint64_t seed,
                            int threads, int asked, int hardware, std::size_t train_rows,
                            std::size_t test_rows) {
  TrainingReport report;
  report.pipeline_name = p.name;
  report.seed = seed;
  report.threads = threads;
  report.train_rows = train_rows;
  report.test_rows = test_rows;
  report.features = train_data.features();
  report.classes = train_data.num_classes;
  report.task = train_data.task == Task::Classification ? "classification" : "regression";
  report.task_from = p.data.task                       ? "data.task"
                     : !train_data.class_names.empty() ? "text labels"
                     : train_data.task == Task::Classification ? "integer target"
                                                                : "non-integer target";
  report.warnings = p.warnings;  // what the pipeline file should say otherwise
  if (asked > threads) {
    report.warnings.push_back({"trainer", "threads-capped",
                               std::to_string(asked) + " threads asked for, " +
                                   std::to_string(hardware) + " hardware threads here: ran on " +
                                   std::to_string(threads),
                               "threads (or --threads) <= " + std::to_string(hardware)});
  }
  return report;
}

// The missing inputs under [data] missing: counted per column, then their rows dropped, or
// imputed by values fitted on the training rows (returned, kept in the model; empty: none).
// Sharded (mpirun), each rank holds its rows: the counts are summed over ranks, each rank drops
// its own rows, and the imputation is fitted on the rows of all ranks (fit_imputation is
// collective), the same values on every rank as one process fits on all rows.
Vector handle_missing(const Pipeline& p, Dataset& train_data, std::optional<Dataset>& raw_test,
                      std::optional<training::UserFolds>& user_folds, std::size_t train_rows,
                      TrainingReport& report) {
  Vector imputation;
  if (p.data.missing != MissingPolicy::Error) {
    report.missing_policy = to_string(p.data.missing);
    // The readers left out the rows whose target is missing; counted here, over all ranks.
    report.missing_targets = std::size_t(count_over_ranks(train_data.missing_targets));
    if (raw_test)
      report.missing_test_targets = std::size_t(count_over_ranks(raw_test->missing_targets));
    std::vector<std::size_t> counts = count_missing(train_data.inputs);
    {
      std::vector<std::uint64_t> over_ranks(counts.begin(), counts.end());
      collectives().sum(over_ranks.data(), over_ranks.size());
      std::copy(over_ranks.begin(), over_ranks.end(), counts.begin());
    }
    for (std::size_t j = 0; j < counts.size(); ++j)
      report.missing.emplace_back(train_data.feature_names[j], counts[j]);
    if (p.data.missing == MissingPolicy::DropRows) {
      if (user_folds) training::drop_missing_rows_of(*user_folds, train_data.inputs);
      report.dropped_rows = std::size_t(count_over_ranks(drop_missing_rows(train_data)));
      if (raw_test)
        report.dropped_test_rows = std::size_t(count_over_ranks(drop_missing_rows(*raw_test)));
      report.train_rows = std::size_t(count_over_ranks(train_data.rows()));
      report.test_rows = raw_test ? std::size_t(count_over_ranks(raw_test->rows())) : 0;
      if (report.train_rows == 0) {
        throw DataError(train_data.source + ": every training row has a missing input, so "
                        "data.missing = \"drop-rows\" leaves none; impute instead (missing = "
                        "\"mean\" or \"median\")");
      }
    } else {
      // A column with no observed value has no mean, median or distribution to fill it from.
      for (std::size_t j = 0; j < counts.size(); ++j)
        if (train_rows != 0 && counts[j] == train_rows)
          throw DataError(train_data.source + ": input column '" + train_data.feature_names[j] +
                          "' has no observed value in the " + std::to_string(train_rows) +
                          " training rows, so data.missing = \"" + to_string(p.data.missing) +
                          "\" has nothing to fill it from; remove the column, or give it values");
    }
    if (p.data.missing == MissingPolicy::Mean || p.data.missing == MissingPolicy::Median) {
      imputation = fit_imputation(train_data.inputs, p.data.missing);
      impute(train_data.inputs, imputation);
      if (raw_test) impute(raw_test->inputs, imputation);
    }
  }

  return imputation;
}

TrainingResult train(const Pipeline& p, const Registry& registry, Dataset train_data,
                     std::optional<Dataset> raw_test, const TrainOptions& options) {
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  const std::uint64_t seed = options.seed.value_or(p.seed);
  int threads = options.threads.value_or(p.threads);
  threads = resolve_threads(threads);
  // More threads than the hardware runs only costs memory and switching (10,000 once took the
  // load to 600 and aborted when they could not start): capped, the results being the same.
  const int hardware = resolve_threads(0) * ranks_on_this_machine();  // the cores (cached)
  const int asked = threads;
  threads = std::min(threads, hardware);
  const auto& log = options.log;
  // Sharded: the rows of all ranks.
  const std::size_t train_rows = count_over_ranks(train_data.rows());
  const std::size_t test_rows = raw_test ? count_over_ranks(raw_test->rows()) : 0;
  if (log) {
    log("data: " + std::to_string(train_rows) + " training rows, " +
        std::to_string(train_data.features()) + " features" +
        (train_data.task == Task::Classification ? ", " + std::to_string(train_data.num_classes) + " classes"
                                                : ", regression"));
  }

  TrainingReport report =
      start_report(p, train_data, seed, threads, asked, hardware, train_rows, test_rows);

  // Folds the user gave: a fold column leaves the inputs here, before anything is fitted (the
  // imputation and the coding are then those of the inputs alone).
  std::optional<training::UserFolds> user_folds;
  agreed([&] {
    user_folds = training::read_user_folds(p.evaluate, train_data, raw_test ? &*raw_test : nullptr);
  });
  // As for [evaluate] folds: a [search] folds that the given folds contradict is a mistake.
  if (user_folds && p.search && p.search->folds_given && p.search->folds != user_folds->count) {
    throw InputError(p.search->where.str() + ": [search] folds = " +
                     std::to_string(p.search->folds) + " but the given folds ([evaluate] " +
                     (p.evaluate.fold_file ? "fold_file" : "fold_column") + ") hold " +
                     std::to_string(user_folds->count) + " distinct values, which the search "
                     "uses; omit search.folds or make them agree");
  }
  report.features = train_data.features();

  const Vector imputation =
      handle_missing(p, train_data, raw_test, user_folds, train_rows, report);

  if (!p.data.standardize) agreed([&] { check_unstandardised_range(train_data); });

  // Cross-validation first, on the raw rows (it refits the standardiser on every fold), so the
  // training rows can then be standardised in place. Its warnings follow the main fit's.
  std::vector<Warning> cv_warnings;
  if (p.evaluate.folds >= 2 || user_folds) {
    report.cv = cross_validate(p, registry, train_data, seed, threads, cv_warnings, log,
                               user_folds ? &*user_folds : nullptr);
  }

  // The search, on the raw rows as well; its chosen candidate is what is fitted below.
  std::optional<Pipeline> chosen;
  if (p.search) {
    report.search = training::run_search(p, train_data, seed, threads, fit_and_test(registry), log,
                                         user_folds ? &*user_folds : nullptr);
    chosen = p.search->candidates[report.search->best];
    chosen->text = p.text;
    if (!chosen->text.empty() && chosen->text.back() != '\n') chosen->text += '\n';
    chosen->text += training::chosen_note(report.search->candidates[report.search->best].values);
  }
  const Pipeline& fitted = chosen ? *chosen : p;

  Standardiser standardiser;
  if (p.data.standardize) {
    report.constant_columns = standardiser.fit(train_data.inputs);
    if (p.data.nominal_scale == NominalScale::Input)
      standardiser.scale_nominal_inputs(train_data.coding);
    standardiser.apply(train_data.inputs);
  }
  if (report.constant_columns > 0) {
    report.warnings.push_back({"standardiser", "constant-column",
                               std::to_string(report.constant_columns) +
                                   " input column(s) are constant in the training data; they are "
                                   "mapped to 0",
                               "remove the column(s) from the data"});
  }

  Fitted f = fit_network(fitted, registry, train_data, seed, threads, log);
  f.model.standardize = p.data.standardize;
  f.model.standardiser = standardiser;
  f.model.imputation = imputation;
  f.model.missing_em = p.data.missing == MissingPolicy::Em;
  report.centres = f.centres;
  report.basis = f.basis_stage;
  report.selection = f.selection;
  const auto warn_edges = [&](const char* component, const std::vector<std::string>& keys) {
    for (const std::string& key : keys)
      report.warnings.push_back(
          {component, "grid-edge",
           key + " was chosen at the edge of its grid, so a better value may lie beyond it",
           key + " (try values beyond the edge)"});
  };
  if (f.selection) warn_edges("selection", f.selection->edges);
  if (report.search) warn_edges("search", report.search->edges);
  report.output = f.output;
  report.refine = f.refine;
  for (const StageReport* st : {&f.centres, &f.basis_stage, &f.output}) collect_warnings(*st, report.warnings);
  if (f.refine) collect_warnings(*f.refine, report.warnings);

  // Row chunks: no standardised copy, no N x K outputs; the training rows are standardised.
  report.train = training_metrics(f, train_data, seed, threads, p.data.standardize);
  if (raw_test) report.test = evaluate_metrics(f.model, f.basis, *raw_test, threads);
  report.warnings.insert(report.warnings.end(), cv_warnings.begin(), cv_warnings.end());
  report.seconds = seconds_since(start);
  report.cpu_seconds = process_cpu_seconds() - cpu_start;
  if (options.summary) f.model.training_summary = report_json(report);

  TrainingResult result{std::move(f.model), std::move(report)};
  return result;
}

}  // namespace radial
