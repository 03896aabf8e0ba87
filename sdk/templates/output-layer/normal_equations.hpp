#pragma once
// Linear outputs (identity link) by the normal equations: W minimises
//   E(W) = 1/2 ||Phi W - T||^2 + penalty(W)
// by Newton steps W <- W - H^{-1} g with H = Phi^T Phi (one block per output) + the penalty's
// Hessian, g = Phi^T (Phi W - T) + the penalty's gradient. One step from W = 0 is the minimum
// for a quadratic penalty (ridge: (Phi^T Phi + alpha I) W = Phi^T T); a penalty that is not
// quadratic takes more. Phi^T Phi and Phi^T T are summed once, block by block and over the
// ranks of a data-parallel run (radial::gram_products), so each step costs no pass over the rows.

#include <cstddef>

#include <radial/core/option_table.hpp>
#include <radial/network/output_layer.hpp>
#include <radial/sdk/configured.hpp>

namespace normal_equations_plugin {

struct NormalEquationsOptions {
  std::size_t iterations = 50;  // >= 1: normal_equations_table()
  double tolerance = 1e-10;     // > 0
};

radial::OptionTable<NormalEquationsOptions> normal_equations_table();

class NormalEquations final
    : public radial::sdk::Configured<radial::OutputLayer, NormalEquationsOptions> {
 public:
  using Configured::Configured;

  bool least_squares() const override { return true; }
  // ShapeError when the design and the targets differ in rows; NumericalError when H is not
  // positive definite (a design of rank below M + 1 without a penalty), naming the remedy.
  radial::OutputWeights fit(const radial::TrainingProblem& problem,
                            const radial::WeightPenalty* penalty,
                            radial::FitContext& ctx) override;
};

}  // namespace normal_equations_plugin
