#pragma once
// The trainer: runs a pipeline end to end. Reads the data, optionally runs k-fold
// cross-validation with committees (on the raw rows), standardises the training rows in place,
// fits the centres, prepares the basis, fits the output layer with the centres fixed (the two
// stages of every paper here), and evaluates on the training and test sets in row chunks.
// Memory: the data plus O(chunk) buffers besides what the plugins keep, so the largest data set
// that trains is about the size of memory, not a fraction of it. Returns the model and a report.
//
// Data-parallel (under a ShardedScope of P > 1 ranks, radial/distributed/collectives.hpp): every
// rank calls train() with the same pipeline and options and holds only its shard of the rows; every
// data pass, the standardiser, the folds and the metrics combine the ranks' partial results, so
// every rank returns the same model and report (rows counted over all ranks). [search] and
// cross-validation fits then run one at a time (collectives come from one thread), each still
// using the thread budget for its row blocks.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/training/metrics.hpp"
#include "radial/model/model.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"

namespace radial {

struct DataOptions;  // radial/data/data_reader.hpp

struct StageReport {
  std::string plugin;
  std::size_t count = 0;  // centres: M; output: number of outputs
  FitReport fit;
};

// Values of a [search] candidate, in the order of the axes: ("centres.count", 2), ...
using SearchValues = std::vector<std::pair<std::string, ParamValue>>;

struct FoldReport {
  std::size_t fold = 0;
  std::size_t train_rows = 0, test_rows = 0;
  Metrics test;
  SearchValues chosen;  // nested CV: the candidate the fold's own search chose (else empty)
};

struct SearchCandidateReport {
  SearchValues values;
  std::vector<double> per_fold;   // the metric on each fold
  std::optional<double> mean, sd;  // over folds (sample sd); absent when the candidate failed
  std::string error;               // why the candidate failed (its fit threw), else empty
  double seconds = 0;              // summed over its folds
};

struct SearchReport {
  std::string metric;
  std::size_t folds = 0;
  std::size_t best = 0;            // index into candidates
  std::vector<std::string> edges;  // keys whose chosen number is the smallest or largest tried
  std::vector<SearchCandidateReport> candidates;
};

// Closed-form model selection (radial/network/ridge_loo.hpp) of the values a pipeline leaves
// to "choose": the basis width scale, the weight penalty's alpha, the number of centres.
struct SelectionCurve {
  std::size_t count = 0;             // centres of this curve
  double width_scale = 1;            // the basis width scale of this curve
  std::vector<double> alphas;        // the penalties tried (absolute)
  std::vector<double> loo;           // per alpha: mean squared LOO residual
  std::vector<double> loo_error;     // per alpha: LOO error rate (classification, else empty)
  std::vector<double> gcv, dof;      // per alpha: GCV, trace H
};

struct SelectionReport {
  std::string criterion = "loo";     // what was minimised: "loo" (squared error), "loo-error"
  SearchValues chosen;               // ("basis.width_scale", 2.0), ("weight-penalty.alpha", ...)
  double score = 0;                  // the criterion at the chosen values
  double loo = 0;                    // the LOO squared error there
  // The pipeline named no weight penalty: one was added (weight-decay; rkhs with a centre subset).
  bool penalty_added = false;
  std::vector<SelectionCurve> curves;
  std::vector<std::string> edges;    // chosen values at the edge of their grid
  // Outputs of another error than least squares: the penalty path the output layer itself was
  // cross-validated on (alphas from large to small, cut short after two no better than the
  // best), its metric per alpha (over the folds fitted; NaN: the fit failed) and the metric's
  // name; empty for least-squares outputs. An alpha whose errors passed the best's total before
  // its last fold was stopped there (hopeless).
  std::vector<double> path_alphas, path_errors;
  std::vector<std::size_t> path_fitted_folds;  // fewer than path_folds: stopped as hopeless
  std::string path_metric;
  std::size_t path_folds = 0;
  // The rows the values were chosen on, and when that is a sample, how many it was drawn from
  // (0: every training row).
  std::size_t rows = 0, sample_of = 0;
  // The rows the leave-one-out was summed over (`rows`, or a sample of them with a centre subset).
  std::size_t scored_rows = 0;
  // The centres the values were chosen with, when a subset: how many, of how many (0: all).
  // The width scale and penalty chosen on the subset are carried to all the centres by these
  // factors (selection.hpp).
  std::size_t centres = 0, centres_of = 0;
  double width_transfer = 1, alpha_transfer = 1;
  // Classes on all their centres: the centre subset the widths were prescreened with (0: no
  // prescreen) and its curves; `curves` then holds the widths scored with all the centres.
  std::size_t prescreen_centres = 0;
  std::vector<SelectionCurve> prescreen_curves;
  // centres.count = "choose" above 800 centres: each count tried, its error on the held-out
  // rows (error rate for classes, MSE for regression) with its standard error, and the rows its
  // network was fitted on; the held-out rows (min(N / 5, 50,000)). Empty otherwise.
  std::vector<std::size_t> count_curve_counts;
  std::vector<double> count_curve_errors;
  std::vector<double> count_curve_standard_errors;
  std::vector<std::size_t> count_curve_rows;
  std::size_t count_curve_held_out = 0;
  // The auto count's pilot (selection.hpp, selection_pilot_centres): its centres, their
  // leave-one-out error rate on `pilot_rows` selection rows at the width and penalty chosen
  // with them and its standard error, and the count the network was given (the pilot's when
  // that error rate plus its standard error was at most selection_pilot_worth, else the auto
  // count). pilot_centres is 0 without a pilot.
  std::size_t pilot_centres = 0, pilot_rows = 0, pilot_count = 0;
  double pilot_error = 0, pilot_standard_error = 0;
  double seconds = 0;
};

struct CrossValidationReport {
  std::size_t folds = 0;
  std::size_t committee = 0;
  double error_rate = 0, error_rate_sd = 0;          // over folds (classification)
  std::optional<double> cross_entropy;               // mean over folds
  double mse = 0;                                    // mean over folds
  std::optional<double> r2;                          // mean over folds (regression)
  std::vector<FoldReport> per_fold;
};

struct TrainingReport {
  std::string pipeline_name;
  std::uint64_t seed = 0;
  int threads = 1;
  std::size_t train_rows = 0, test_rows = 0, features = 0, classes = 0;
  // The task ("classification" or "regression") and what decided it: "data.task" (given),
  // "text labels", "integer target" or "non-integer target" (inferred by the reader).
  std::string task, task_from;
  std::size_t constant_columns = 0;
  // [data] missing other than "error": the policy, the missing cells of each input column of the
  // training rows (before dropping or imputing), and the rows dropped.
  std::string missing_policy;
  std::vector<std::pair<std::string, std::size_t>> missing;
  std::size_t dropped_rows = 0, dropped_test_rows = 0;
  // Rows left out because their target is missing (training and test), under any policy but
  // "error".
  std::size_t missing_targets = 0, missing_test_targets = 0;
  StageReport centres, basis, output;
  std::optional<StageReport> refine;                   // [refine]: whole-network training
  Metrics train;
  std::optional<Metrics> test;
  std::optional<CrossValidationReport> cv;
  std::optional<SearchReport> search;                 // [search] on all training rows
  std::optional<SelectionReport> selection;           // "choose" values, chosen in closed form
  std::vector<Warning> warnings;                      // every guard that fired, all stages
  double seconds = 0;                                 // wall
  // CPU seconds of the process during train() (all its threads; in an experiment with
  // --jobs > 1 the other runs' threads too).
  double cpu_seconds = 0;
};

struct TrainingResult {
  Model model;
  TrainingReport report;
};

struct TrainOptions {
  std::optional<std::uint64_t> seed;  // overrides the pipeline's seed
  std::optional<int> threads;         // overrides the pipeline's threads (0: all cores)
  std::function<void(const std::string&)> log;  // progress lines
  // false: Model::training_summary is left empty, for a caller that makes it from the report
  // only when asked (report_json took a third of train() on 20 rows; cross-validation never
  // reads it).
  bool summary = true;
};

TrainingResult train(const Pipeline& pipeline, const Registry& registry,
                     const TrainOptions& options = {});

// The pipeline's training and test data as train() reads them: read_dataset, or under a
// ShardedScope of P > 1 ranks this rank's shard of each file (read_dataset_shard; its errors are
// thrown on every rank alike). The test set is coded with the training set's classes.
struct TrainingData {
  Dataset train;
  std::optional<Dataset> test;
};
TrainingData read_training_data(const Pipeline& pipeline);

// The options train() reads the pipeline's training file with ([data], and the pipeline's
// threads for parsing a large CSV in parts).
DataOptions training_data_options(const Pipeline& pipeline);

// The same on data already read (raw, not standardised): pipeline.data's files are not read,
// its standardize setting is used. `test` must have the training data's columns and classes.
// The experiment runner trains from data it read once and split.
TrainingResult train(const Pipeline& pipeline, const Registry& registry, Dataset train_data,
                     std::optional<Dataset> test_data, const TrainOptions& options = {});

// The report as JSON text (the schema is documented in docs/pipeline-format.md).
std::string report_json(const TrainingReport& report);
// Metrics alone as JSON (`radial evaluate`): error_rate, misclassified, cross_entropy, mse, rows.
std::string metrics_json(const Metrics& metrics);

// Metrics of a trained model on `data` (as compute_metrics(Network(model, basis).predict(
// data.inputs), ...), to the last bit), predicted in row chunks on `threads` workers and summed
// in row order, so that neither a standardised copy of the inputs nor the N x K outputs are
// held. Sharded: `data` is this rank's rows, the metrics those of all ranks (a row that fails on
// one rank throws on every rank, radial::agreed). `standardised`: data.inputs are already standardised by the model's standardiser (it
// is not applied again). ShapeError when the outputs do not fit the data's classes.
Metrics evaluate_metrics(const Model& model, std::shared_ptr<const Basis> basis,
                         const Dataset& data, int threads = 1, bool standardised = false);

// Seeds for independent stages and committee members derived from one seed (SplitMix64), so
// adding a stage never shifts another stage's random stream.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// The seeds of k-fold cross-validation, shared by [evaluate] and [search] so that a candidate's
// search score is the number [evaluate] gives it: the folds are drawn with
// cv_folds_seed(seed) = derive_seed(seed, 5), and fold k is fitted with
// cv_fold_seed(seed, k) = derive_seed(derive_seed(seed, 6), k).
std::uint64_t cv_folds_seed(std::uint64_t seed);
std::uint64_t cv_fold_seed(std::uint64_t seed, std::size_t fold);

// Stratified (by class, classification) or plain k-fold assignment of rows to folds, shuffled
// with `seed`: result[n] = fold of row n. Sharded: result[n] = fold of this rank's row n, the
// fold that row has in the single-process assignment of all ranks' rows (collective).
std::vector<std::size_t> assign_folds(const Dataset& data, std::size_t folds, bool stratified,
                                      std::uint64_t seed);

}  // namespace radial
