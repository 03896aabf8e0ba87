#pragma once
// `grnn`: Specht's general regression neural network (1991, IEEE Trans. Neural Networks 2(6)
// 568-576) as an output layer. With one centre per training row (centres subset, all = true)
// and the gaussian basis of spread sigma (basis.width), the network is eq 3, the
// Nadaraya-Watson estimate
//
//   y(x) = sum_n y_n exp(-D_n^2 / 2 sigma^2) / sum_n exp(-D_n^2 / 2 sigma^2)
//
// and with fewer centres (kmeans) its clustered form, eqs 5-6: y = sum_j A_j phi_j / sum_j
// B_j phi_j, A_j the sum and B_j the count of the targets of the rows nearest centre j.
// Nothing is optimised: fit() returns W = [A, B] (radial/numerics/normalised_sums.hpp) for the
// framework's `normalised` prediction rule (classes: 1-of-K targets and the
// `normalised-posterior` rule, which is the pnn with the class frequencies as priors).
// The spread is the one parameter, the basis's width; the rule reads log phi, so the basis
// needs a log map (gaussian).

#include <radial/sdk/configured.hpp>

#include "radial/network/output_layer.hpp"

namespace radial::plugins {

struct GrnnOptions {};

class GrnnOutput final : public sdk::Configured<OutputLayer, GrnnOptions> {
 public:
  using Configured::Configured;
  // No weights are fitted on the design: the trainer's least-squares selection does not apply.
  bool selectable() const override { return false; }
  WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                               std::size_t outputs) const override;
  // Throws InputError when the basis has no log map.
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;
};

}  // namespace radial::plugins
