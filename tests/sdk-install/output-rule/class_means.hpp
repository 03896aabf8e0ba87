#pragma once
// `class-means`: a two-class output layer with its own prediction rule, `probit`.
//
// fit: w = scale (mean_1 - mean_0) over the basis columns of Phi for the rows of class 1 and of
// class 0, and the bias puts a = 0 halfway between the two means:
//   w_j = scale (m1_j - m0_j) (j < M),  w_M = -sum_j w_j (m1_j + m0_j) / 2.
// probit: a = [phi(x), 1] W (one column), y = [Phi(-a), Phi(a)] with Phi the standard normal
// distribution function, Phi(a) = erfc(-a / sqrt 2) / 2.

#include <radial/network/output_layer.hpp>
#include <radial/core/option_table.hpp>
#include <radial/network/prediction_rule.hpp>
#include <radial/sdk/configured.hpp>

namespace class_means_plugin {

class ProbitRule final : public radial::PredictionRule {
 public:
  bool probabilities() const override { return true; }
  std::size_t outputs(std::size_t) const override { return 2; }
  std::string check(const radial::Matrix& weights, std::size_t classes) const override;
  void predict(const radial::Matrix& design, const radial::Matrix& weights,
               radial::Matrix& outputs) const override;
};

struct ClassMeansOptions {
  double scale = 1.0;
};

radial::OptionTable<ClassMeansOptions> class_means_table();

class ClassMeansOutput final
    : public radial::sdk::Configured<radial::OutputLayer, ClassMeansOptions> {
 public:
  using Configured::Configured;
  radial::OutputWeights fit(const radial::TrainingProblem& problem,
                            const radial::WeightPenalty* penalty,
                            radial::FitContext& ctx) override;
};

}  // namespace class_means_plugin
