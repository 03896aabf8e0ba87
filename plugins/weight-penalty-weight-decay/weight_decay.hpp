#pragma once
// Weight decay: the Gaussian prior p(w) ∝ exp(-alpha/2 ||w||^2) on the output weights, i.e. the
// penalty alpha/2 ||w||^2 added to the error (ridge regression of the lecture notes, paper 001,
// "Regularization": beta = (Z^T Z + lambda I)^{-1} Z^T y with lambda = alpha).
//
// W is (M+1) x K with the bias in the last row; by default the bias row is not penalised
// (a prior on the bias would make the fit depend on the origin of the targets).

#include <cstddef>

#include "radial/core/params.hpp"
#include "radial/network/weight_penalty.hpp"
#include "radial/core/types.hpp"

namespace radial::plugins {

struct WeightDecayOptions {
  double alpha = 0.01;        // >= 0: the parameter table
  bool include_bias = false;  // also penalise the bias row
};

class WeightDecay final : public WeightPenalty {
 public:
  explicit WeightDecay(WeightDecayOptions options)
      : alpha_(options.alpha), include_bias_(options.include_bias) {}

  // alpha/2 sum of W_ik^2 over the penalised rows.
  double penalty(const Matrix& weights) const override;
  // gradient += alpha W on the penalised rows. ShapeError if gradient differs from weights.
  void add_gradient(const Matrix& weights, Matrix& gradient) const override;
  // hessian(p, p) += alpha for p = i*K + k on the penalised rows i. ShapeError unless P x P.
  void add_hessian(const Matrix& weights, Matrix& hessian) const override;
  // product += alpha direction on the penalised rows. ShapeError unless both are shaped as W.
  void add_hessian_product(const Matrix& weights, const Matrix& direction,
                           Matrix& product) const override;

  double alpha() const { return alpha_; }
  bool include_bias() const { return include_bias_; }

 private:
  // Rows 0..n-1 of W are penalised: all of them, or all but the bias row.
  std::size_t penalised_rows(const Matrix& weights) const;

  double alpha_;
  bool include_bias_;
};

}  // namespace radial::plugins
