#pragma once
// `dem`: discriminative EM for per-class mixtures of diagonal Gaussians (Klautau, paper 002,
// section III-B and fig. 2), the first training stage of an RBF classifier.
//
// Starts from the per-class EM solution (fig. 1) and maximises the log-posterior
//
//   log R^d = sum_n log P(y_n) + log p(x_n | y_n) - log p(x_n),
//   p(x|y) = sum_g w_yg N(x | mu_yg, S_yg),   p(x) = sum_y sum_g P(y) w_yg N(x | mu_yg, S_yg)
//
// E-step: numerator counts C^num (the row's own class, as EM) and denominator counts C^den (the
// evidence mixture with weights w'_yg = P(y) w_yg), from one evaluation of the Gaussians,
// optionally only those of the row's K-d tree leaf (section III-C).
// M-step: the extended Baum-Welch updates of fig. 2,
//
//   w~   = (C(1)num - C(1)den + D w) / (sum_g' (C(1)num - C(1)den) + D)
//   mu~  = (C(x)num - C(x)den + D mu) / (C(1)num - C(1)den + D)
//   s2~  = (C(x2)num - C(x2)den + D (s2 + mu^2)) / (C(1)num - C(1)den + D) - mu~^2
//
// with a per-Gaussian D_jg = max(C(1)den_jg / eta, 2 D_min_jg), where D_min_jg is the smallest
// D keeping C(1)num - C(1)den + D > 0 and every new variance positive (the larger root of the
// quadratic s2~(D) (C1 + D)^2 = 0 in each dimension). The weights of class j use
// D_j = max(max_g D_jg, 2 max_g (C(1)den - C(1)num)_jg / w_jg) so that they stay positive.
//
// Learning rate: eta grows (x eta_grow) after an improvement of log R^d and shrinks
// (x eta_shrink) after a loss. A step that lowers log R^d is undone (the parameters and
// counts of the best iterate are restored and the M-step is redone with the smaller eta);
// the paper keeps such steps, which is the dip of its figure 4. The returned centres are the
// best iterate, so log R^d never ends below the EM solution.
//
// Stops when log R^d changes by at most `tolerance` relative after an improvement, when eta
// falls below 1e-10 (no improving step found), or after `iterations` M-steps.
// Report: series "log_Rd" (per E-step) and "eta" (in force for the following M-step),
// figures log_Rd_em, log_Rd, eta, mean_candidates.

#include <cstddef>

#include <radial/sdk/configured.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/core/centres.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct DemOptions {
  std::size_t count = 4;           // Gaussians per class G
  double learning_rate = 0.1;      // initial eta
  double eta_grow = 1.5;
  double eta_shrink = 0.5;
  std::size_t iterations = 50;     // cap on DEM M-steps
  double tolerance = 1e-6;         // relative change of log R^d
  EmOptions em;                    // the per-class EM start (shape Diagonal), floor, tree
};

inline constexpr char dem_id[] = "dem";  // the plugin id (RADIAL_PLUGIN, messages)

class DemLearner final : public sdk::Configured<CentreLearner, DemOptions> {
 public:
  using Configured::Configured;
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;
};

// One DEM run from given per-class diagonal mixtures (owner, mixing, class_priors set), for
// tests and the reproduction: returns the best centres and records the report in ctx.
Centres dem_refine(const Matrix& x, const Labels& classes, Centres start, const DemOptions& options,
                   FitContext& ctx);

}  // namespace radial::plugins
