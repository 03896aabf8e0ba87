#pragma once
// Pieces shared by the output trainers irls, scg and bfgs: the link parameter, the starting
// weights, the paper's stopping rule, the fit-report trace, and the guards for separable data
// and non-finite steps.

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/vectors.hpp"
#include "radial/network/link.hpp"
#include "radial/core/option_table.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial::glm {

// What the shared parameters hold, as the base of each trainer's options: link, the iteration
// cap and the tolerance of the stopping rule.
struct TrainerOptions {
  std::string link = "auto";
  std::size_t iterations = 100;
  double tolerance = 1e-4;
};

// The gradient trainers (scg, bfgs) also have `start`, and a larger default cap.
struct GradientTrainerOptions : TrainerOptions {
  GradientTrainerOptions() { iterations = 1000; }
  std::string start = "pseudo-inverse";  // or "zero" (the NETLAB reference runs)
};

// The parameters the trainers share, so their tables read alike: `link` (see resolve_link),
// `iterations` (documented by `iterations_doc`), `tolerance` (StoppingRule::tolerance) and, for
// the gradient trainers, `start` (see start_weights).
OptionTable<TrainerOptions> trainer_table(std::string iterations_doc);
OptionTable<GradientTrainerOptions> gradient_trainer_table(std::string iterations_doc);

// gradient_trainer_table as the whole table of a trainer whose Options add no parameter of their
// own to GradientTrainerOptions (scg, bfgs).
template <class Options>
OptionTable<Options> gradient_trainer_table(std::string iterations_doc) {
  OptionTable<Options> table;
  table.include(gradient_trainer_table(std::move(iterations_doc)));
  return table;
}

// The `link` parameter: "auto" = logistic for 2 classes, softmax for more, identity for
// regression; otherwise the named link. Throws ParameterError naming `component` when the link
// does not fit the data (logistic with 3 classes, a class link for regression).
Link resolve_link(const std::string& choice, const Dataset& data, const std::string& component);

// OutputLayer::fit of a GLM trainer: resolves the `link` choice for the problem's data, builds
// the objective on its design and targets (with `penalty`), and returns the weights that
// `train` finds on that objective, tagged with the link.
OutputWeights fit_output_weights(const TrainingProblem& problem, const WeightPenalty* penalty,
                                 const std::string& link_choice, const std::string& component,
                                 const std::function<Matrix(Objective&)>& train);

// The working memory of a GLM trainer that holds `extra_doubles` beyond the objective's blocks:
// OutputLayer::working_memory's default plus those, described by `what`, with `remedy`.
WorkingMemory trainer_memory(std::size_t rows, std::size_t centres, std::size_t outputs,
                             double extra_doubles, std::string what, std::string remedy = "");

// The output layer of a GLM trainer, which is then glue: made from its options (derived from
// TrainerOptions), which it only stores; fit() is fit_output_weights with
// train(objective, options, ctx). `id` names the plugin in messages; `memory`, when given, is
// the trainer's working memory (OutputLayer::working_memory) for its options.
using TrainerMemory = WorkingMemory (*)(std::size_t rows, std::size_t centres,
                                        std::size_t outputs);
template <class Options, Matrix (*train)(Objective&, const Options&, FitContext&), const char* id,
          TrainerMemory memory = nullptr>
class TrainerLayer final : public OutputLayer {
 public:
  explicit TrainerLayer(Options options) : options_(std::move(options)) {}
  WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                               std::size_t outputs) const override {
    // A plain if: GCC 12 does not take a function-pointer template argument compared with
    // nullptr as a constant expression in every build type.
    if (memory != nullptr) return memory(rows, centres, outputs);
    return OutputLayer::working_memory(rows, centres, outputs);
  }
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override {
    return fit_output_weights(problem, penalty, options_.link, id, [&](Objective& objective) {
      return train(objective, options_, ctx);
    });
  }

 private:
  Options options_;
};

// Weights are C x K row-major, so the flattening p = i*K + k is the storage order.
Vector flatten(const Matrix& weights);
Matrix unflatten(const Vector& p, std::size_t cols, std::size_t outputs);

// The linear-output pseudo-inverse solution W = Phi^+ T (ridge with a quadratic penalty), the
// start of SCG and quasi-Newton (paper 003, section 4). Logistic: the 0/1 target column.
Matrix linear_start(Objective& objective);

// The `start` parameter: "zero" gives zero weights, "pseudo-inverse" gives linear_start.
Matrix start_weights(const std::string& choice, Objective& objective);

// IRLS's first iterate (paper 003, section 2.2): weighted least squares (eq. 12) on the
// smoothed targets p = (t + 1/K)/2 (= (t + 0.5)/2 for two classes, as NETLAB's glmtrain), with
// eta = ln(p / (1 - p)), weights p (1 - p) and z = eta + (t - p) / (p (1 - p)), each output
// independently. The identity link gets linear_start (IRLS is then exact in one step).
Matrix smoothed_target_start(Objective& objective);

// Both the largest absolute weight change and the absolute error change below `tolerance`
// (papers 000/003, section 4: "both ... less than 1e-4"), with a cap on iterations.
struct StoppingRule {
  double tolerance = 1e-4;
  std::size_t iterations = 100;
  bool satisfied(const Matrix& weights, const Matrix& previous, double error,
                 double previous_error) const;
  // The report's message when satisfied() held at `iteration`.
  std::string met_at(std::size_t iteration) const;
};

// Why a trainer stopped before its iteration cap, for Trace::finish: the reason and, in words,
// the numbers that decided it.
struct Stop {
  Termination why = Termination::Converged;
  std::string how;
};

// Records the learning curve (error after each iteration, cumulative flops and seconds) and
// fills ctx.report at the end.
class Trace {
 public:
  Trace(FitContext& ctx, const Objective& objective, std::string component);
  void record(std::size_t iteration, double error);
  // Warns (guard "separable-data") that the classes are separable by the basis outputs, at most
  // once per fit: the error fell to `data_error` with the largest weight at max_abs(weights).
  void warn_separable(double data_error, const Matrix& weights, std::size_t iteration);
  // Ends the fit in ctx.report: its stop record (`stop`, or without one the iteration cap `cap`
  // with its warning), the separable-data warning when the final error says so
  // (looks_separable), the data error and penalty of the final `weights` as figures, and the
  // counts.
  void finish(std::size_t iterations, const std::optional<Stop>& stop, const Matrix& weights,
              double final_error, std::size_t cap);
  double seconds() const;

 private:
  FitContext& ctx_;
  const Objective& objective_;
  std::string component_;
  std::chrono::steady_clock::time_point start_;
  bool separable_warned_ = false;
};

// Separable data: without a penalty the cross-entropy can approach 0 only with weights growing
// without bound. True when the link is logistic or softmax, no penalty is active, and the mean
// data error per row (over all ranks' rows) is below 1e-7.
bool looks_separable(const Objective& objective, double data_error);

}  // namespace radial::glm
