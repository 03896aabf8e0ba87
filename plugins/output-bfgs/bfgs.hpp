#pragma once
// Quasi-Newton BFGS for the output weights (NETLAB quasinew.m; Nocedal & Wright, Numerical
// Optimization, eq. 6.17 for the inverse-Hessian update, algorithms 3.5/3.6 for the strong Wolfe
// line search of radial/optim/line_search.hpp), on the same GLM objective as irls: cross-entropy
// for logistic / softmax outputs, 1/2 sum of squares for identity outputs. Starts from the
// linear-output pseudo-inverse solution (Nabney, papers 000/003, section 4) and stops by the
// papers' rule.

#include <cstddef>
#include <string>

#include "radial/core/fit_context.hpp"
#include "radial/optim/line_search.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct BfgsOptions : glm::GradientTrainerOptions {
  glm::WolfeOptions line_search;  // c1 = 1e-4, c2 = 0.1, 25 evaluations
};

// Runs BFGS on `objective` from options.start (glm::start_weights) and fills ctx.report.
Matrix bfgs(glm::Objective& objective, const BfgsOptions& options, FitContext& ctx);

inline constexpr char bfgs_id[] = "bfgs";

// BFGS's working memory: the inverse Hessian estimate of all K (M + 1) weights and its update.
WorkingMemory bfgs_memory(std::size_t rows, std::size_t centres, std::size_t outputs);

// The output layer: BFGS on the GLM objective (glm::TrainerLayer).
using Bfgs = glm::TrainerLayer<BfgsOptions, bfgs, bfgs_id, bfgs_memory>;

}  // namespace radial::plugins
