#pragma once
// Moller's scaled conjugate gradient for the output weights (Bishop 1995, section 7.9; NETLAB
// scg.m), on the same GLM objective as irls: cross-entropy for logistic / softmax outputs,
// 1/2 sum of squares for identity outputs. Starts from the linear-output pseudo-inverse
// solution as in Nabney's papers (000/003, section 4) and stops by the papers' rule.

#include <cstddef>
#include <string>

#include "radial/core/fit_context.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct ScgOptions : glm::GradientTrainerOptions {};  // SCG has no settings of its own

// Runs SCG on `objective` from options.start (glm::start_weights) and fills ctx.report.
Matrix scg(glm::Objective& objective, const ScgOptions& options, FitContext& ctx);

inline constexpr char scg_id[] = "scg";

// The output layer: SCG on the GLM objective (glm::TrainerLayer).
using Scg = glm::TrainerLayer<ScgOptions, scg, scg_id>;

}  // namespace radial::plugins
