#pragma once
// Blocked squared distances by the GEMM identity  ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c,
// Euclidean or Mahalanobis under the centres' shapes:
//   Spherical: ||x - c_j||^2 / sigma_j^2
//   Diagonal:  sum_d (x_d - c_jd)^2 / s_jd       (one GEMM on x^2 and one on x, scaled)
//   Full:      (y - c'_j)^T P_j (y - c'_j), P_j = S_j^{-1}, y = x - g, c'_j = c_j - g: one GEMM
//              of the rows' quadratic features against per-centre coefficients (below), or
//              ||L_j^{-1} (x - c_j)||^2 with S_j = L_j L_j^T (Cholesky-whitened GEMM per centre)
// Per-centre factors are computed once in the constructor; compute() is const and thread-safe.
// Results are clamped at 0 (the identity can round slightly negative).

#include <memory>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/core/types.hpp"

namespace radial {

// How Full-shape distances are evaluated. Quadratic: one GEMM with inner dimension
// d(d+1)/2 + d + 1 for all centres at once; its rounding error is ~1e-16 times the size of the
// terms (y^T P_j y), so Automatic takes it only when d <= 64 and, for every centre,
// (|c'_j|^2 + tr S_j) tr P_j <= 1e8 (points within the centre's spread far from g would
// cancel); otherwise Whitened, which sums squares of whitened differences without cancellation.
enum class FullForm { Automatic, Quadratic, Whitened };

// One Gaussian over the inputs (Model::input_model, Diagonal or Full shape) prepared for the
// conditionals compute_expected needs: a full covariance's precision P = S^-1 is found once,
// so that a row's conditional of its missing inputs m given the observed ones o,
// C = (P_mm)^-1 and mu_m|o = mu_m - C P_mo (x_o - mu_o) (the Schur complement), costs a
// |m| x |m| factorisation in place of the |o| x |o| one of S_oo.
class InputModel {
 public:
  // ShapeError unless one Gaussian with a Diagonal or Full shape; NumericalError when a full
  // covariance is not positive definite.
  explicit InputModel(const Centres& model);
  ~InputModel();
  InputModel(InputModel&&) noexcept;
  InputModel& operator=(InputModel&&) noexcept;
  std::size_t dim() const;
  bool full() const;
  // The conditional mean (|m| values) and covariance (|m| x |m| row-major when full(), else
  // the |m| variances) of a row's missing coordinates given its observed ones.
  void conditional(const double* x, const std::vector<std::size_t>& observed,
                   const std::vector<std::size_t>& missing, std::vector<double>& mu,
                   std::vector<double>& c) const;

 private:
  struct Impl;  // the model and (full) its precision, as the missing-data EM reads them
  std::unique_ptr<Impl> impl_;
};

class SquaredDistances {
 public:
  // Throws ShapeError if metric is Shape and the centres have no shape, or a covariance is
  // not positive definite (the message names the centre).
  SquaredDistances(const Centres& centres, Metric metric, FullForm form = FullForm::Automatic);
  ~SquaredDistances();
  SquaredDistances(SquaredDistances&&) noexcept;
  SquaredDistances& operator=(SquaredDistances&&) noexcept;

  // r2 (resized to x_block.rows x M) = squared distances from each row of x_block to each centre.
  void compute(const Matrix& x_block, Matrix& r2) const;

  // One row x (d values) with missing (NaN) coordinates: r2 (M values) = the squared distance
  // over its observed coordinates o under the marginal shapes S_j,oo (Euclidean: the sum over
  // o), and log_det (M values, may be null) = log |S_j,oo| (0 for Euclidean). A row without NaN
  // gives what compute() gives up to rounding; compute() stays the path for those.
  void compute_observed(const double* x, double* r2, double* log_det) const;

  // One row x (d values) with missing (NaN) coordinates m and observed ones o: r2 (M values)
  // such that exp(-r2_j / 2) = E[exp(-q_j(x) / 2)], q_j(x) = (x - c_j)^T S_j^{-1} (x - c_j) under
  // the metric's shapes (Euclidean: S_j = I), the expectation over x_m ~ N(mu, C), the
  // conditional of x_m given x_o under `input_model` (one Gaussian, Diagonal or Full shape,
  // variances >= 0). The exact Gaussian integral (see distances.cpp):
  //   r2_j = q_j,o + (mu - c~_j)^T (T_j + C)^{-1} (mu - c~_j) + log |T_j + C| - log |T_j|
  // with q_j,o = (x_o - c_j,o)^T S_j,oo^{-1} (x_o - c_j,o), and c~_j = c_j,m + S_j,mo S_j,oo^{-1}
  // (x_o - c_j,o), T_j = S_j,mm - S_j,mo S_j,oo^{-1} S_j,om the basis's own conditional of the
  // missing coordinates (Ghahramani & Jordan 1994, section 3). C = 0 and mu = x_m give q_j(x).
  // Throws NumericalError when T_j + C is not positive definite.
  void compute_expected(const double* x, const Centres& input_model, double* r2) const;
  // The same with the input model prepared once (for every row of a design).
  void compute_expected(const double* x, const class InputModel& input_model, double* r2) const;

  // log |S_j| for each centre (0 for Euclidean), for Gaussian normalising constants.
  const Vector& log_determinants() const;

  std::size_t count() const;
  std::size_t dim() const;

  // Feature form, for callers that reuse the features (the EM statistics): r2 = max(0, F W)
  // with F (rows x P) the features of the rows and W = feature_coefficients() (P x M).
  //   Diagonal:        F = [x_1^2..x_d^2, x_1..x_d, 1]
  //   Full quadratic:  F = [(y_a y_b)_{a<=b} in row-major upper-triangle order, y_1..y_d, 1],
  //                    y = x - feature_reference(); the coefficient of y_a y_b is P_ab for
  //                    a = b and 2 P_ab for a < b, of y_a -2 (P c')_a, of 1 c'^T P c'.
  // feature_count() is P, or 0 when the metric has no feature form (Euclidean, Spherical,
  // whitened Full).
  std::size_t feature_count() const;
  // f (resized to count x P) = features of `count` contiguous rows of d values at `rows`.
  void features(const double* rows, std::size_t count, Matrix& f) const;
  const Matrix& feature_coefficients() const;
  const Vector& feature_reference() const;  // g (d); zeros for Diagonal

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Convenience: all N x M squared Euclidean distances between rows of a and rows of b.
Matrix squared_euclidean(const Matrix& a, const Matrix& b);

}  // namespace radial
