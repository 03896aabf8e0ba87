// Shared pieces of the output trainers (see radial/glm/training.hpp).
#include "radial/glm/training.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "radial/core/errors.hpp"
#include "radial/glm/newton.hpp"

namespace radial::glm {

OptionTable<TrainerOptions> trainer_table(std::string iterations_doc) {
  OptionTable<TrainerOptions> t;
  t.choice("link", &TrainerOptions::link, {"auto", "logistic", "softmax", "identity"},
           "output link; auto = logistic for 2 classes, softmax for more, identity for "
           "regression");
  t.bind("iterations", &TrainerOptions::iterations, std::move(iterations_doc)).at_least(1);
  t.bind("tolerance", &TrainerOptions::tolerance,
         "stop when the largest weight change AND the error change are both below this")
      .above(0.0);
  return t;
}

OptionTable<GradientTrainerOptions> gradient_trainer_table(std::string iterations_doc) {
  OptionTable<GradientTrainerOptions> t;
  t.include(trainer_table(std::move(iterations_doc)));
  t.choice("start", &GradientTrainerOptions::start, {"pseudo-inverse", "zero"},
           "initial weights: the linear-output least-squares solution (the paper) or zeros");
  return t;
}

Link resolve_link(const std::string& choice, const Dataset& data, const std::string& component) {
  const bool regression = data.task == Task::Regression;
  const std::size_t k = data.num_classes;
  if (choice == "auto") {
    if (regression) return Link::Identity;
    return k == 2 ? Link::Logistic : Link::Softmax;
  }
  const auto link = link_from_string(choice);
  if (!link || (*link != Link::Identity && *link != Link::Logistic && *link != Link::Softmax))
    throw ParameterError("plugin " + component + ", parameter link: '" + choice +
                         "' is not one of auto, logistic, softmax, identity");
  if (regression && *link != Link::Identity)
    throw ParameterError("plugin " + component + ", parameter link = \"" + choice +
                         "\": the task is regression, which needs link = \"identity\" (or "
                         "\"auto\")");
  if (!regression && *link == Link::Logistic && k != 2)
    throw ParameterError("plugin " + component + ", parameter link = \"logistic\": the data has " +
                         std::to_string(k) + " classes; use link = \"softmax\" (or \"auto\")");
  return *link;
}

OutputWeights fit_output_weights(const TrainingProblem& problem, const WeightPenalty* penalty,
                                 const std::string& link_choice, const std::string& component,
                                 const std::function<Matrix(Objective&)>& train) {
  const Link link = resolve_link(link_choice, problem.data, component);
  // Targets coded per block from the class indices: no N x K matrix, which for many classes would outgrow the data.
  Objective objective(problem.design, problem.data, link, penalty);
  OutputWeights out;
  out.weights = train(objective);
  out.link = link;
  return out;
}

Vector flatten(const Matrix& weights) {
  Vector p = xt::zeros<double>({weights.size()});
  std::copy(weights.data(), weights.data() + weights.size(), p.data());
  return p;
}

Matrix unflatten(const Vector& p, std::size_t cols, std::size_t outputs) {
  if (p.size() != cols * outputs)
    throw ShapeError("unflatten: " + std::to_string(p.size()) + " parameters for " +
                     std::to_string(cols) + " x " + std::to_string(outputs) + " weights");
  Matrix w = xt::zeros<double>({cols, outputs});
  std::copy(p.data(), p.data() + p.size(), w.data());
  return w;
}

namespace {

Matrix solve_normal_equations(Objective& objective, const Objective::BlockWeights& weights) {
  Matrix system;
  Vector rhs;
  objective.weighted_normal_equations(weights, system, rhs);
  // Without a coupling penalty the system is block diagonal: one solve per output.
  const SymmetricSolve solved =
      solve_block_diagonal(system, rhs, objective.outputs(), SolveMethod::CholeskyFirst);
  objective.add_flops(solved.flops);
  return unflatten(solved.x, objective.cols(), objective.outputs());
}

}  // namespace

Matrix linear_start(Objective& objective) {
  // v = 1, z = T, block by block.
  return solve_normal_equations(objective,
                                [](std::size_t, const Matrix& t, Matrix& v, Matrix& z) {
                                  std::fill(v.begin(), v.end(), 1.0);
                                  std::copy(t.begin(), t.end(), z.begin());
                                });
}

Matrix start_weights(const std::string& choice, Objective& objective) {
  if (choice == "zero") return xt::zeros<double>({objective.cols(), objective.outputs()});
  return linear_start(objective);
}

Matrix smoothed_target_start(Objective& objective) {
  if (objective.link() == Link::Identity) return linear_start(objective);
  const std::size_t n = objective.total_rows(), k = objective.outputs();
  // Logistic has one column for two classes.
  const double classes = objective.link() == Link::Logistic ? 2.0 : double(k);
  objective.add_flops(8.0 * double(n * k));
  return solve_normal_equations(
      objective, [classes](std::size_t, const Matrix& t, Matrix& v, Matrix& z) {
        for (std::size_t i = 0; i < t.size(); ++i) {
          const double target = t.data()[i];
          const double p = (target + 1.0 / classes) / 2.0;
          const double w = p * (1.0 - p);
          v.data()[i] = w;
          z.data()[i] = std::log(p / (1.0 - p)) + (target - p) / w;  // eq. 11: eta + e
        }
      });
}

bool StoppingRule::satisfied(const Matrix& weights, const Matrix& previous, double error,
                             double previous_error) const {
  double change = 0;
  for (std::size_t i = 0; i < weights.size(); ++i)
    change = std::max(change, std::fabs(weights.data()[i] - previous.data()[i]));
  return change < tolerance && std::fabs(error - previous_error) < tolerance;
}

WorkingMemory trainer_memory(std::size_t rows, std::size_t centres, std::size_t outputs,
                             double extra_doubles, std::string what, std::string remedy) {
  const double m1 = double(centres) + 1.0;
  const double doubles = 4.0 * m1 * m1 + double(rows) * double(outputs) + extra_doubles;
  return {8.0 * doubles, std::move(what), std::move(remedy)};
}

std::string StoppingRule::met_at(std::size_t iteration) const {
  std::ostringstream m;
  m << "the largest weight change and the error change fell below tolerance " << tolerance
    << " at iteration " << iteration;
  return m.str();
}

Trace::Trace(FitContext& ctx, const Objective& objective, std::string component)
    : ctx_(ctx),
      objective_(objective),
      component_(std::move(component)),
      start_(std::chrono::steady_clock::now()) {
  ctx_.report.curve.clear();
}

double Trace::seconds() const {
  return seconds_since(start_);
}

void Trace::record(std::size_t iteration, double error) {
  ctx_.report.curve.push_back({iteration, error, objective_.counters().flops, seconds()});
  if (ctx_.log) {
    std::ostringstream line;
    line << component_ << ": iteration " << iteration << " error " << error;
    ctx_.progress(line.str());
  }
}

void Trace::warn_separable(double data_error, const Matrix& weights, std::size_t iteration) {
  if (separable_warned_) return;
  separable_warned_ = true;
  std::ostringstream m;
  m << "training cross-entropy fell to " << data_error << " at iteration " << iteration
    << " with the largest weight at " << max_abs(weights)
    << ": the classes are separable by the basis outputs, so the maximum-likelihood weights "
       "are infinite; training stopped with finite weights";
  ctx_.warn("separable-data", m.str(),
            "add a [weight-penalty] with alpha > 0, e.g. 0.01 (radial plugins list names the "
            "weight penalties)");
}

void Trace::finish(std::size_t iterations, const std::optional<Stop>& stop, const Matrix& weights,
                   double final_error, std::size_t cap) {
  FitReport& r = ctx_.report;
  if (stop) {
    r.stop(stop->why, stop->how);
  } else {
    std::ostringstream m;
    m << "stopping rule not met after " << cap << " iterations (error " << final_error << ")";
    ctx_.warn("iteration-cap", m.str(), "output.iterations");
    r.stop(Termination::IterationCap, m.str());
  }
  if (looks_separable(objective_, final_error)) warn_separable(final_error, weights, iterations);
  r.figures["data_error"] = objective_.data_error(weights);
  r.figures["penalty"] = objective_.penalty(weights);
  r.iterations = iterations;
  r.final_error = final_error;
  r.seconds = seconds();
  r.flops = objective_.counters().flops;
  r.function_evaluations = objective_.counters().function_evaluations;
  r.gradient_evaluations = objective_.counters().gradient_evaluations;
  r.figures["hessian_evaluations"] = double(objective_.counters().hessian_evaluations);
}

bool looks_separable(const Objective& objective, double data_error) {
  if (objective.link() == Link::Identity || objective.penalised()) return false;
  return data_error < 1e-7 * double(std::max<std::size_t>(objective.total_rows(), 1));
}

}  // namespace radial::glm
