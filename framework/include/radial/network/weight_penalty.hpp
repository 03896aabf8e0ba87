#pragma once
// WeightPenalty: a prior on the output weights, added to a training objective as
//   E(W) = E_data(W) + penalty(W).
// W is (M+1) x K with the bias in the last row; the Hessian uses the row-major flattening
// p = i*K + k of W, i.e. a P x P matrix with P = (M+1)*K. Every output trainer (least squares
// ridge, IRLS, SCG, BFGS) consumes only these three calls, so any weight-penalty plugin drops in.
// A pipeline names one in [weight-penalty].
//
// Lifecycle: made from validated Params; the trainer then calls prepare() with the fitted
// centres and the prepared basis, right before the output stage (and before every other fit
// of output weights on fixed centres: the selection's cross-validated path). A penalty that
// depends on the network (the RKHS norm w^T K_MM w, K_MM the basis at the centres) takes what
// it needs there; the rest ignore it. After prepare() the three calls are const and
// thread-safe. A refiner moves the centres: the penalty stays the one prepared on the
// two-stage centres (the trainer does not prepare it again).

#include "radial/core/types.hpp"

namespace radial {

class Basis;
struct Centres;

class WeightPenalty {
 public:
  virtual ~WeightPenalty();

  // Called with the centres and the basis the output weights will be fitted on (basis
  // prepared). Default: nothing to do. Throws a radial::Error when they cannot be used.
  virtual void prepare(const Centres& centres, const Basis& basis);

  virtual double penalty(const Matrix& weights) const = 0;
  // gradient += d penalty / dW   (same shape as weights)
  virtual void add_gradient(const Matrix& weights, Matrix& gradient) const = 0;
  // hessian += d^2 penalty / dW^2   (P x P in the flattening above)
  virtual void add_hessian(const Matrix& weights, Matrix& hessian) const = 0;
  // product += (d^2 penalty / dW^2 at weights) applied to direction (both shaped as weights):
  // the Hessian-vector product of Newton-CG solvers, which never form the P x P Hessian.
  // Default: forms it by add_hessian and multiplies (P^2 memory); a penalty whose Hessian is
  // cheap to apply overrides it. ShapeError when direction or product differ from weights.
  virtual void add_hessian_product(const Matrix& weights, const Matrix& direction,
                                   Matrix& product) const;
};

}  // namespace radial
