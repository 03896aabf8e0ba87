#pragma once
// The Bhattacharyya kernel prior of the probabilistic RBF network (Constantinopoulos, Titsias &
// Likas 2001): p(theta) = prod_j exp(-alpha delta_j), delta_j = sum_k P(C_k|j) beta_jk (eqs 16,
// 17), beta_jk the Bhattacharyya distance between kernel j and its subkernel jk (eq 23). With
// the paper's working assumption Sigma_jk = Sigma_j (before eq 26), beta_jk = delta_jk / 8 with
// delta_jk the squared Mahalanobis distance of eq 30.
//
// A kernel prior only: combine it with a [weight-penalty] to also penalise output weights.

#include <string>

#include "radial/network/kernel_prior.hpp"
#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial::plugins {

enum class BhattacharyyaUnits {
  Absolute,  // alpha as given
  NOverKM,   // alpha * N / (K M), the unit of the paper's experiments (section 4)
};

struct BhattacharyyaOptions {
  double alpha = 10.0;  // >= 0: the parameter table
  BhattacharyyaUnits units = BhattacharyyaUnits::NOverKM;
};

class BhattacharyyaPrior final : public KernelPrior {
 public:
  using Units = BhattacharyyaUnits;

  explicit BhattacharyyaPrior(BhattacharyyaOptions options)
      : alpha_(options.alpha), units_(options.units) {}

  // The alpha of eqs 17-30 for this problem size.
  double effective_alpha(const KernelPriorInput& kernels) const;

  double kernel_penalty(const KernelPriorInput& kernels) const override;
  Matrix kernel_distances(const KernelPriorInput& kernels) const override;
  void add_mean_terms(const KernelPriorInput& kernels, KernelMeanTerms& terms) const override;
  void add_mixing_terms(const KernelPriorInput& kernels, Matrix& terms) const override;

 private:
  double alpha_;
  Units units_;
};

// Eq 23 for two Gaussians with their own covariances (d x d, symmetric positive definite):
//   1/8 (m1 - m2)^T [(S1 + S2)/2]^{-1} (m1 - m2) + 1/2 ln( |(S1 + S2)/2| / sqrt(|S1| |S2|) )
// Throws NumericalError when a covariance is not positive definite.
double bhattacharyya_distance(const Vector& mean1, const Matrix& cov1, const Vector& mean2,
                              const Matrix& cov2);

}  // namespace radial::plugins
