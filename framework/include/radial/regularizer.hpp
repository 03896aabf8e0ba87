#pragma once
// Regularizer: a prior that adds a penalty to a training objective.
//
// Weight-penalty side (used by the output layers): E(W) = E_data(W) + penalty(W). W is
// (M+1) x K with the bias in the last row; the Hessian uses the row-major flattening
// p = i*K + k of W, i.e. a P x P matrix with P = (M+1)*K. Every output trainer (least squares
// ridge, IRLS, SCG, BFGS) consumes only these three calls, so any Regularizer plugin drops in.

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
};

}  // namespace radial
