#pragma once
// The RKHS norm of the network's kernel part as a penalty on the output weights:
//
//   penalty(W) = alpha/2 sum_k w_k^T K w_k,      K = [K_MM 0; 0 0]  ((M+1) x (M+1), bias last)
//   K_MM(i, j) = phi_j(c_i)                      (the basis at the centres)
//
// For f(x) = sum_j beta_j k(x, c_j) + b with a positive definite kernel k(x, c_j) = phi_j(x),
// beta^T K_MM beta is ||f - b||^2 in the kernel's RKHS: with every training row a centre the
// least-squares fit is kernel ridge regression, and with fewer centres it is the Nystrom KRR of
// FALKON (Rudi, Carratino & Rosasco 2017: (K_nM^T K_nM + lambda n K_MM) beta = K_nM^T y, so
// alpha = lambda n; they have no bias). Weight decay (alpha/2 ||w||^2) is the same prior with
// K = I.
//
// K_MM depends on the fitted centres and basis, so the penalty is usable only after prepare()
// (the trainer calls it before the output stage). K_MM is symmetrised, (K + K^T)/2, which leaves
// w^T K w unchanged (per-centre widths make phi_j(c_i) != phi_i(c_j)); prepare() refuses a K_MM
// that is not positive semi-definite (thin-plate, cubic, r4logr and multiquadric are only
// conditionally definite: their penalty would reward some weights without bound).

#include <cstddef>
#include <vector>

#include "radial/core/params.hpp"
#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::plugins {

struct RkhsOptions {
  double alpha = 0.01;        // >= 0: the parameter table
  bool include_bias = false;  // K(M, M) = 1: also alpha/2 b^2 on the bias row
};

class RkhsNorm final : public WeightPenalty {
 public:
  explicit RkhsNorm(RkhsOptions options)
      : alpha_(options.alpha), include_bias_(options.include_bias) {}

  // K_MM from the design matrix at the centres (DesignMatrix(centres.means, ...) without its
  // bias column), symmetrised. Throws InputError when there are no centres or K_MM is not
  // positive semi-definite (a Cholesky factorisation of K_MM + 1e-10 max|K_MM| I fails).
  void prepare(const Centres& centres, const Basis& basis) override;

  // W: (M+1) x K for any K (output layers also pass one column at a time). Each throws Error
  // before prepare() and ShapeError when W has another number of rows than M + 1.
  double penalty(const Matrix& weights) const override;
  // gradient += alpha K W. ShapeError unless gradient has W's shape.
  void add_gradient(const Matrix& weights, Matrix& gradient) const override;
  // hessian(i*K + k, j*K + k) += alpha K(i, j) for every output k. ShapeError unless P x P,
  // P = (M+1) K.
  void add_hessian(const Matrix& weights, Matrix& hessian) const override;
  // product += alpha K direction (M^2 K flops). ShapeError unless both are shaped as W.
  void add_hessian_product(const Matrix& weights, const Matrix& direction,
                           Matrix& product) const override;

  double alpha() const { return alpha_; }
  bool include_bias() const { return include_bias_; }
  bool prepared() const { return prepared_; }
  // K_MM as prepared (M x M, symmetric, unpacked from its stored lower triangle); empty before
  // prepare().
  Matrix kernel() const;

 private:
  // Throws unless prepared and W has M + 1 rows; `call` names the caller in the message.
  void check_weights(const Matrix& weights, const char* call) const;
  // out (M x K) = K_MM W[0:M, :]
  void kernel_times(const Matrix& weights, Matrix& out) const;
  // Stores the lower triangle of `kernel` (M x M, symmetric) and marks the penalty prepared.
  void pack(const Matrix& kernel);

  double alpha_;
  bool include_bias_;
  bool prepared_ = false;
  // K_MM's lower triangle, packed column by column (BLAS 'L' packed storage): half the memory
  // of the square (at M = 10^4, 400 MB beside the cg preconditioner's 800 MB).
  std::vector<double> packed_;
  std::size_t m_ = 0;
  std::size_t rows_ = 0;  // weight rows: M + 1, or M + q with the basis's polynomial term
};

}  // namespace radial::plugins
