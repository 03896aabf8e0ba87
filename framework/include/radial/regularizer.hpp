#pragma once
// Regularizer: a prior that adds a penalty to a training objective.
//
// Weight-penalty side (used by the output layers): E(W) = E_data(W) + penalty(W). W is
// (M+1) x K with the bias in the last row; the Hessian uses the row-major flattening
// p = i*K + k of W, i.e. a P x P matrix with P = (M+1)*K. Every output trainer (least squares
// ridge, IRLS, SCG, BFGS) consumes only these three calls, so any Regularizer plugin drops in.
//
// Kernel-prior side (used by class-aware centre learners, prbf): a prior p(theta) on the shared
// kernels and mixing weights, log p(theta) = -alpha sum_j sum_k P(C_k|j) D_jk (see
// radial/kernel_prior.hpp). The learner consumes only has_kernel_prior() and the three calls
// below, so another distance drops in. The defaults are a flat prior (no penalty, no terms):
// a weight-penalty plugin implements nothing here, and a pure kernel prior answers
// penalises_weights() with false.

#include "radial/kernel_prior.hpp"
#include "radial/types.hpp"

namespace radial {

class Regularizer {
 public:
  virtual ~Regularizer();

  // Does this regularizer penalise output weights at all? (A pure kernel prior may not.)
  virtual bool penalises_weights() const = 0;

  virtual double penalty(const Matrix& weights) const = 0;
  // gradient += d penalty / dW   (same shape as weights)
  virtual void add_gradient(const Matrix& weights, Matrix& gradient) const = 0;
  // hessian += d^2 penalty / dW^2   (P x P in the flattening above)
  virtual void add_hessian(const Matrix& weights, Matrix& hessian) const = 0;

  // Does this regularizer place a prior on kernels at all?
  virtual bool has_kernel_prior() const { return false; }

  // -log p(theta) up to its normalising constant: alpha sum_j sum_k P(C_k|j) D_jk (eqs 16-17).
  virtual double kernel_penalty(const KernelPriorInput& kernels) const;
  // D_jk (M x K), the distance between kernel j and subkernel jk (eq 23 for Bhattacharyya).
  virtual Matrix kernel_distances(const KernelPriorInput& kernels) const;
  // terms += what the prior adds to the M-step of the means (eq 27; see KernelMeanTerms).
  virtual void add_mean_terms(const KernelPriorInput& kernels, KernelMeanTerms& terms) const;
  // terms (M x K) += pi_jk * d log p(theta) / d pi_jk, with P(C_k|j) a function of pi (eq 15):
  // the regularisation term of the mixing-weight M-step (eq 29), which sums to 0 over k for
  // every kernel (eq 31). The learner then sets pi_jk proportional to
  // sum_{x in X_k} P(j|x,C_k) + terms_jk within each class.
  virtual void add_mixing_terms(const KernelPriorInput& kernels, Matrix& terms) const;
};

}  // namespace radial
