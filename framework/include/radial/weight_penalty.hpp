#pragma once
// WeightPenalty: a prior on the output weights, added to a training objective as
//   E(W) = E_data(W) + penalty(W).
// W is (M+1) x K with the bias in the last row; the Hessian uses the row-major flattening
// p = i*K + k of W, i.e. a P x P matrix with P = (M+1)*K. Every output trainer (least squares
// ridge, IRLS, SCG, BFGS) consumes only these three calls, so any weight-penalty plugin drops in.
// A pipeline names one in [weight-penalty].

#include "radial/types.hpp"

namespace radial {

class WeightPenalty {
 public:
  virtual ~WeightPenalty();

  virtual double penalty(const Matrix& weights) const = 0;
  // gradient += d penalty / dW   (same shape as weights)
  virtual void add_gradient(const Matrix& weights, Matrix& gradient) const = 0;
  // hessian += d^2 penalty / dW^2   (P x P in the flattening above)
  virtual void add_hessian(const Matrix& weights, Matrix& hessian) const = 0;
};

}  // namespace radial
