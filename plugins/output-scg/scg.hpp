#pragma once
// Moller's scaled conjugate gradient for the output weights (Bishop 1995, section 7.9; NETLAB
// scg.m), on the same GLM objective as irls: cross-entropy for logistic / softmax outputs,
// 1/2 sum of squares for identity outputs. Starts from the linear-output pseudo-inverse
// solution as in Nabney's papers (000/003, section 4) and stops by the papers' rule.

#include <cstddef>
#include <string>

#include "radial/fit_context.hpp"
#include "radial/glm/objective.hpp"
#include "radial/output_layer.hpp"
#include "radial/params.hpp"

namespace radial::plugins {

struct ScgOptions {
  std::string link = "auto";
  std::size_t iterations = 1000;
  double tolerance = 1e-4;
  std::string start = "pseudo-inverse";  // or "zero" (the NETLAB reference runs)
};

// Runs SCG on `objective` from `start` and fills ctx.report.
Matrix scg(glm::Objective& objective, Matrix start, const ScgOptions& options, FitContext& ctx);

class Scg : public OutputLayer {
 public:
  explicit Scg(ScgOptions options) : options_(std::move(options)) {}
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;

 private:
  ScgOptions options_;
};

ScgOptions scg_options(const Params& params);

}  // namespace radial::plugins
