#pragma once
// The probabilistic RBF network (PRBF) as a centre learner: M Gaussian kernels shared by all
// classes, with class-specific mixing weights pi_jk (Titsias & Likas; Constantinopoulos,
// Titsias & Likas 2001):
//
//   p(x|C_k) = sum_j pi_jk p(x|j),   p(x|j) = N(x | mu_j, Sigma_j),   sum_j pi_jk = 1    (eqs 2-5)
//
// trained by EM (E-step eq 4, M-step eqs 6-8), or, when the pipeline's [kernel-prior] places a
// prior on kernels, by the MAP EM of eqs 27-30 with that prior's terms. Class priors are
// P(C_k) = |X_k| / |X| (eq 20). The Bayes output classifies with
// p(C_k|x) proportional to P(C_k) sum_j pi_jk p(x|j).
//
// Guards (each named in the fit report with the setting that changes it):
//   variance-floor        a covariance below diag(floor) in the Loewner order is raised to it;
//                         floor_d = variance_floor * var(x_d) (variance_floor for a constant x_d)
//   negative-mixing-clamp eq 29 gave pi_jk < 0: set to 0 and the class's weights renormalised
//                         (section 3.1)
//   negative-mixing-fallback  eq 29 left no positive weight in a class: eq 8 for that class
//   dead-kernel           a kernel with total responsibility below 1e-8 rows keeps its mean and
//                         covariance (its mixing weights are then ~0 in every class)
//   empty-class           a class without training rows gets P(C_k) = 0 and uniform weights
//   constant-column       a constant input column: every kernel's variance there is the floor
//                         (not counted as variance-floor firings; p(C_k|x) does not change)
//   not-converged         tolerance > 0 and L(theta) still moving after `iterations`

#include <cstddef>
#include <string>

#include <radial/sdk/configured.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/core/centres.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial::plugins {

struct PrbfOptions {
  std::size_t count = 8;            // M kernels
  Shape shape = Shape::Diagonal;    // Diagonal or Full covariances
  std::size_t iterations = 100;     // cap on EM iterations (the paper's experiments ran 100)
  double tolerance = 1e-6;          // stop when |L(theta_t) - L(theta_{t-1})| <= tolerance * N;
                                    // 0 runs exactly `iterations`
  std::string init = "kmeans";      // "kmeans": k-means clusters, uniform pi_jk;
                                    // "gmm": then a label-free Gaussian mixture, pi_jk by eq 8
  std::size_t init_iterations = 20; // EM iterations of that mixture (init = "gmm")
  double variance_floor = 1e-6;     // relative to each feature's variance (see guards above)
  std::size_t block_rows = 512;     // rows per E-step block
};

// Initial kernels (means and options.shape arrays) and mixing weights (M x K, columns sum to 1)
// by options.init, drawing from ctx.rng. Throws InputError when x has fewer rows than kernels.
Centres prbf_initial(const Matrix& x, const Labels& classes, std::size_t num_classes,
                     const PrbfOptions& options, FitContext& ctx);

// EM from `initial` (means, arrays of options.shape, mixing M x K). MAP EM (eqs 27-30) when
// `prior` has a kernel prior, plain EM (eqs 4, 6-8) otherwise. Returns means, shapes, mixing
// and class priors (eq 20). Records in ctx.report: iterations, convergence, final_error =
// -L(theta), the curve, series "log_posterior" (L(theta), eq 22, at theta_0 .. theta_T),
// "log_likelihood" and "log_prior" (its two terms), figures for every guard, and warnings.
Centres prbf_em(const Matrix& x, const Labels& classes, std::size_t num_classes, Centres initial,
                const PrbfOptions& options, const KernelPrior* prior, FitContext& ctx);

inline constexpr char prbf_id[] = "prbf";  // the plugin id (RADIAL_PLUGIN, messages)

class PrbfLearner final : public sdk::Configured<CentreLearner, PrbfOptions> {
 public:
  using Configured::Configured;

  // Classification data only (InputError otherwise, or when N < count).
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;
};

}  // namespace radial::plugins
