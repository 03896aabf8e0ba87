#pragma once
// KernelPrior: a prior p(theta) on the shared Gaussian kernels and class mixing weights of a
// probabilistic RBF network
// (Constantinopoulos, Titsias & Likas 2001), which a centre learner (prbf) consumes in its
// MAP M-step.
//
//   p(x|C_k) = sum_j pi_jk p(x|j),   p(x|j) = N(x | mu_j, Sigma_j)                      (eq 2, 5)
//   log p(theta) = -alpha sum_j sum_k P(C_k|j) D_jk                              (eqs 16, 17, 22)
//
// D_jk is a distance between kernel j and its subkernel jk: kernel j re-estimated on class k
// alone (mean mu_jk, eq 11), with the kernel's own covariance (Sigma_jk = Sigma_j, the paper's
// assumption before eq 26). P(C_k|j) (eq 15) weighs the subkernels. The Bhattacharyya plugin
// uses D_jk = beta_jk (eq 23); another distance (KL, ...) drops in without touching the learner.
//
// A pipeline names one in [kernel-prior]; it can
// be combined with a WeightPenalty (radial/network/weight_penalty.hpp) on the output weights.
//
// The learner hands a KernelPriorInput to three calls (see KernelPrior):
//   kernel_penalty    -log p(theta), for the posterior log-likelihood L(theta) (eq 22)
//   add_mean_terms    what the prior adds to the M-step of the means (eq 27)
//   add_mixing_terms  what the prior adds to the M-step of the mixing weights (eq 29)

#include <cstddef>

#include "radial/core/centres.hpp"
#include "radial/core/types.hpp"

namespace radial {

// The kernels as a kernel prior sees them at one M-step.
struct KernelPriorInput {
  Centres kernels;            // mu_j (means, M x d) and Sigma_j (shape Diagonal or Full)
  Tensor3 subkernel_means;    // M x K x d, mu_jk (eq 11); ignored where P(C_k|j) = 0
  Matrix class_given_kernel;  // M x K, P(C_k|j) (eq 15); rows sum to 1, a dead kernel's row is 0
  std::size_t rows = 0;       // N, the number of training rows (for alpha in units of N/(KM))

  std::size_t count() const { return kernels.count(); }                // M
  std::size_t classes() const { return class_given_kernel.shape(1); }  // K
  std::size_t dim() const { return kernels.dim(); }                    // d

  // Throws ShapeError naming the first inconsistency (array sizes, a shape other than Diagonal
  // or Full, P(C_k|j) outside [0, 1] or a row that sums neither to 1 nor to 0).
  void check() const;
};

// What a kernel prior adds to the M-step of the means (eq 27):
//   mu_j = (sum_k sum_{x in X_k} P(j|x,C_k) x + target_j) / (sum_k sum_{x in X_k} P(j|x,C_k) + weight_j)
// i.e. the prior acts as weight_j pseudo-observations at target_j / weight_j. A prior whose
// log is -1/2 sum_k w_jk (mu_j - mu_jk)^T Sigma_j^{-1} (mu_j - mu_jk) gives
// weight_j = sum_k w_jk and target_j = sum_k w_jk mu_jk.
struct KernelMeanTerms {
  Vector weight;  // M, >= 0
  Matrix target;  // M x d, already multiplied by the weights

  // M zero weights and an M x d zero target: the terms of a flat prior.
  static KernelMeanTerms zeros(std::size_t count, std::size_t dim);
};

class KernelPrior {
 public:
  virtual ~KernelPrior();

  // -log p(theta) up to its normalising constant: alpha sum_j sum_k P(C_k|j) D_jk (eqs 16-17).
  virtual double kernel_penalty(const KernelPriorInput& kernels) const = 0;
  // D_jk (M x K), the distance between kernel j and subkernel jk (eq 23 for Bhattacharyya).
  virtual Matrix kernel_distances(const KernelPriorInput& kernels) const = 0;
  // terms += what the prior adds to the M-step of the means (eq 27; see KernelMeanTerms).
  virtual void add_mean_terms(const KernelPriorInput& kernels, KernelMeanTerms& terms) const = 0;
  // terms (M x K) += pi_jk * d log p(theta) / d pi_jk, with P(C_k|j) a function of pi (eq 15):
  // the regularisation term of the mixing-weight M-step (eq 29), which sums to 0 over k for
  // every kernel (eq 31). The learner then sets pi_jk proportional to
  // sum_{x in X_k} P(j|x,C_k) + terms_jk within each class.
  virtual void add_mixing_terms(const KernelPriorInput& kernels, Matrix& terms) const = 0;
};

// P(C_k|j) = pi_jk P(C_k) / sum_l pi_jl P(C_l) (eq 15) from mixing (M x K) and class priors (K).
// A kernel with zero weight in every class gets a row of zeros.
Matrix class_given_kernel(const Matrix& mixing, const Vector& class_priors);

// delta_jk = (mu_j - mu_jk)^T Sigma_j^{-1} (mu_j - mu_jk) (eq 30), M x K; 0 where P(C_k|j) = 0.
// The squared Mahalanobis distance from each kernel to its subkernels under the kernel's
// covariance, which every distance between Gaussians of equal covariance is a function of
// (Bhattacharyya: delta/8, Kullback-Leibler: delta/2). Throws NumericalError naming the kernel
// when a full covariance is not positive definite.
Matrix subkernel_mahalanobis(const KernelPriorInput& input);

}  // namespace radial
