#pragma once
// SquaredDistances' per-centre factors (radial/numerics/distances.hpp), shared by the distances
// proper (distances.cpp) and the expected distances over missing inputs (distances_expected.cpp).
// Internal to the framework.

#include <cstddef>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct SquaredDistances::Impl {
  Metric metric = Metric::Euclidean;
  Shape shape = Shape::None;  // None: Euclidean distances
  std::size_t m = 0, d = 0;
  Vector log_det;
  // The centres with the shape of the metric (None for Euclidean), for rows with missing cells
  // (compute_observed).
  Centres observed_centres;

  // Euclidean and Spherical: ||x||^2 + ||c_j||^2 - 2 x.c_j, then / sigma_j^2.
  Matrix means;
  Vector mean_norms;
  Vector inverse_variance;

  // Diagonal: sum_d x_d^2 / s_jd - 2 sum_d x_d c_jd / s_jd + sum_d c_jd^2 / s_jd.
  Matrix inverse_diagonal;  // M x d, 1 / s_jd
  Matrix scaled_means;      // M x d, c_jd / s_jd
  Vector diagonal_constant; // M

  // Full: S_j = L_j L_j^T; z = L_j^{-1} x for every centre of a chunk in one GEMM,
  // whitened[:, jj*d + k] = row k of L_{j0+jj}^{-1}, and c'_j = L_j^{-1} c_j.
  std::size_t chunk = 0;            // centres per chunk
  std::vector<Matrix> whitening;    // d x (chunk*d) each; the last is zero-padded
  Matrix whitened_means;            // M x d

  // Feature form (Diagonal, Full quadratic): r2 = max(0, F W).
  std::size_t features = 0;         // P; 0: no feature form
  Matrix coefficients;              // P x M
  Vector reference;                 // d

  // The per-centre factors of each shape, built once by the constructor.
  void prepare_euclidean(const Centres& centres);
  void prepare_diagonal(const Centres& centres);
  void prepare_full(const Centres& centres, FullForm form);
  void store_whitening(const Centres& centres, std::size_t j, const Matrix& l_inv);
  bool quadratic_column(const Centres& centres, std::size_t j, const Matrix& l_inv, FullForm form,
                        Matrix& out) const;

  void make_features(const double* x, std::size_t rows, Matrix& f) const;
  void make_features(const double* x, std::size_t rows, double* out) const;
  void expected_axis_aligned(const double* x, const std::vector<std::size_t>& missing,
                             const std::vector<double>& mu, const std::vector<double>& c,
                             bool model_full, double* r2) const;
  void compute_features(const Matrix& x, Matrix& r2) const;
  void compute_euclidean(const Matrix& x, Matrix& r2) const;
  void compute_full(const Matrix& x, Matrix& r2) const;
};

}  // namespace radial
