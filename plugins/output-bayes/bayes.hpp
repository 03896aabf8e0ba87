#pragma once
// `bayes`: the class-conditional mixture output (Klautau, paper 002, eq. 1 and
// section II; Constantinopoulos et al., paper 004, the PRBF posterior):
//
//   p(C_k | x) = P(C_k) sum_j pi_jk p(x|j) / sum_k' P(C_k') sum_j pi_jk' p(x|j)
//
// There is nothing to optimise: fit() checks that the centres carry mixing weights pi_jk
// (M x K, columns summing to 1) and class priors P(C_k) (K) and returns them as the weights of
// the framework's `bayes` prediction rule, W_jk = log pi_jk and W_Mk = log P(C_k)
// (radial/network/prediction_rule.hpp), which the Network applies to the basis' log map at prediction
// time (the `gaussian` basis with density = true gives log p(x|j) = log N(x | c_j, S_j)).
//
// Centres without mixing weights or priors (pooled gmm, kmeans, subset) are refused with an
// InputError: the layer reads the class-conditional mixtures, it does not estimate them; use
// a class-aware centre learner (gmm with mode = "per-class", dem, prbf).
//
// fit() records the training-set figures from the framework's bayes prediction rule (the
// posterior the network computes) applied to the GaussianLogDensity log-densities: figures
// log_posterior = sum_n log p(C_{y_n} | x_n) (p floored at 1e-300, as the metrics' cross-entropy),
// train_error (fraction misclassified) and final_error = -log_posterior / N, over all ranks' rows
// under sharded training. With kdtree = true the densities are
// evaluated only for the Gaussians of each row's K-d tree leaf (paper 002, section III-C).
// Guard: basis-not-density, when the basis' log map differs from log N(x | c_j, S_j), so the
// posterior the network will compute is not the one of the mixtures.

#include <radial/sdk/configured.hpp>

#include "radial/numerics/kdtree.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct BayesOptions {
  bool use_tree = false;
  GaussianBoxTreeOptions tree;
};

// Training-set figures of the Bayes posterior.
struct BayesFigures {
  double log_posterior = 0;      // sum_n log p(C_{y_n} | x_n)
  double error_rate = 0;         // fraction of rows whose arg max class is wrong
  std::size_t fallback_rows = 0; // (tree) rows whose leaf held none of their class's Gaussians:
                                 // that class's Gaussians were evaluated for them
  double mean_candidates = 0;
};

// log p(C_k | x_n) for every row (N x K) from centres with mixing weights and priors, and the
// figures above (summed over the ranks of collectives()) when `classes` is given. With the
// tree, a class none of whose Gaussians is in the row's leaf gets log p = -inf (its Gaussians
// count as 0, paper 002 section III-C), except the row's own class, which is then evaluated in
// full.
Matrix bayes_log_posterior(const Matrix& x, const Centres& centres, const BayesOptions& options,
                           const Labels* classes, BayesFigures* figures);

inline constexpr char bayes_id[] = "bayes";  // the plugin id (RADIAL_PLUGIN, messages)

class BayesOutput final : public sdk::Configured<OutputLayer, BayesOptions> {
 public:
  using Configured::Configured;
  bool selectable() const override { return false; }  // no weights to penalise
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;
};

}  // namespace radial::plugins
