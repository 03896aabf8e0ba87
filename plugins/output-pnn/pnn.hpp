#pragma once
// `pnn`: Specht's probabilistic neural network (1990, Neural Networks 3(1) 109-118) as an
// output layer. Each class density is the Parzen estimate over its training rows,
//
//   f_k(x) = (1 / n_k) sum_{i in class k} exp(-||x - x_i||^2 / 2 sigma^2)
//
// (up to the constant (2 pi)^(d/2) sigma^d, common to all classes), and the Bayes decision
// takes the largest h_k f_k(x); the outputs are the posteriors
// p(C_k | x) = h_k f_k(x) / sum_k' h_k' f_k'(x). With centres subset all = true and the
// gaussian basis of width sigma, f_k(x) = (1/n_k) sum_j [class of row j = k] phi_j(x): the
// weights W_jk = h_k [c_j = k] / n_k with B_j = sum_k W_jk for the framework's
// `normalised-posterior` rule. Priors h_k: the class frequencies n_k / N (MATLAB's newpnn,
// whose summation layer adds the kernels of each class) or equal (1 / K). With fewer centres
// each row counts for its nearest centre (Specht 1991's clustered form).

#include <string>

#include <radial/sdk/configured.hpp>

#include "radial/network/output_layer.hpp"

namespace radial::plugins {

struct PnnOptions {
  std::string priors = "data";  // "data": n_k / N; "equal": 1 / K
};

class PnnOutput final : public sdk::Configured<OutputLayer, PnnOptions> {
 public:
  using Configured::Configured;
  bool selectable() const override { return false; }
  WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                               std::size_t outputs) const override;
  // Throws InputError for regression targets or a basis without a log map.
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;
};

}  // namespace radial::plugins
