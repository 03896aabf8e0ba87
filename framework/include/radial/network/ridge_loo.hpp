#pragma once
// Closed-form leave-one-out and generalised cross-validation of ridge least squares over a
// path of penalties, from one decomposition of the Gram (Orr 1996, "Introduction to radial basis
// function networks", section 6: the projection matrix P = I - H, LOO residuals e_n / P_nn and
// GCV = N e^T e / (trace P)^2; the LOO of kernel ridge as dlib's krr_trainer computes it).
//
//   min_{w, b}  ||Phi w + 1 b^T - T||^2 + lambda ||w||^2        (the bias b is not penalised)
//
// or, given a metric S = L L^T (positive definite, M x M), the penalty lambda w^T S w (the RKHS
// norm's S = K_MM): with v = L^T w it is the ridge above on Phi L^{-T}, so A below becomes
// L^{-1} A L^{-T} and V is L^{-T} times its tridiagonal basis.
//
// Centring Phi and T removes b: with A = Phi_c^T Phi_c = V T V^T (T tridiagonal, V orthogonal:
// LAPACK dsytrd and dorgtr) and z_n = V^T (phi_n - mean),
//   fit_n = mean(T) + z_n^T (T + lambda I)^{-1} V^T Phi_c^T T_c
//   h_n   = 1/N + z_n^T (T + lambda I)^{-1} z_n              (the hat matrix's diagonal)
// where T + lambda I = L D L^T costs O(M) per lambda, so every lambda costs one pass of
// O(N M K) over the rows and no further decomposition (in the eigenbasis, T = diag(e), these are
// Orr's sums over z_ni^2 / (e_i + lambda)).

#include <cstddef>
#include <vector>

#include "radial/network/design_matrix.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct RidgePath {
  std::vector<double> lambdas;  // as given
  std::vector<double> loo;      // (1/N) sum_n ||t_n - fit_n^(-n)||^2 per lambda (inf if h_n ~ 1)
  // With 1-of-K targets: the fraction of rows whose leave-one-out prediction's arg max is not
  // their class, per lambda (empty otherwise).
  std::vector<double> loo_error;
  std::vector<double> gcv;          // N ||T - fit||^2 / (N - trace H)^2 per lambda
  std::vector<double> dof;          // trace H (effective number of parameters, bias included)
  std::size_t rows = 0;             // N over all ranks
  std::size_t scored_rows = 0;      // the rows the leave-one-out sums are over (all ranks)
};

// `design` holds the bias column last (DesignMatrix, not log domain); `targets` this rank's N x K
// targets. With `relative`, the penalties are lambdas[l] times the mean eigenvalue of the centred
// Gram (trace A / M), so one grid suits any width; otherwise they are used as given. Under
// sharded rows both passes are summed over the ranks (every rank returns the same path).
// `one_of_k`: the targets are a 1-of-K class coding; loo_error is then filled too.
// `metric`: S (M x M, the centres' weights only), null for the identity; NumericalError when it
// is not positive definite (its Cholesky factorisation fails).
// NumericalError when the design has a non-finite value or the eigensolver fails.
// `scored` (with `scored_targets`, its rows' targets): the leave-one-out sums of the second pass
// over these rows only, a sample of the design's rows (the same centres and basis), while the fit
// whose rows are left out is still the one on every row of `design` (its leverages h_n keep the
// 1/N of all of them). loo and loo_error are then means over the scored rows, an unbiased estimate
// of the means over all the rows at a fraction of the second pass (2 n M^2 + 2 n M L K on n
// scored rows: with L = 20 penalties and K = 26 classes, most of a path's cost); gcv takes the
// scored rows' squared error per row times N.
RidgePath ridge_loo_path(const DesignMatrix& design, const Matrix& targets,
                         const std::vector<double>& lambdas, bool relative, bool one_of_k = false,
                         const Matrix* metric = nullptr, const DesignMatrix* scored = nullptr,
                         const Matrix* scored_targets = nullptr);

// The default relative grid: `count` factors from 1e-9 to 10, evenly spaced in log.
std::vector<double> default_lambda_factors(std::size_t count = 20);

}  // namespace radial
