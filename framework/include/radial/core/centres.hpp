#pragma once
// Centres c_1..c_M of an RBF network, with optional shapes and class structure.
//
//   phi_j(x) = basis(r_j(x)),   r_j(x) = ||x - c_j||_{S_j}
//
// The shape S_j is a spherical variance, a diagonal of variances, or a full covariance; the
// distance is then Mahalanobis. Centre learners that model class structure (per-class mixtures,
// DEM, PRBF) also fill mixing weights pi_jk, owner classes and class priors P(C_k), which the
// Bayes output uses: p(C_k|x) proportional to P(C_k) sum_j pi_jk p(x|j).

#include <cstddef>
#include <vector>

#include "radial/core/types.hpp"

namespace radial {

enum class Shape { None, Spherical, Diagonal, Full };

// Which squared distance a basis measures (Basis::metric) and the numerics compute under the
// shapes: Basis::map receives it.
enum class Metric {
  Euclidean,  // ||x - c_j||^2, shapes ignored
  Shape,      // Mahalanobis (x - c_j)^T S_j^{-1} (x - c_j) under the centres' shapes
};

const char* to_string(Shape shape);

struct Centres {
  Matrix means;               // M x d
  Shape shape = Shape::None;
  Vector variances;           // Spherical: M variances sigma_j^2
  Matrix diagonal;            // Diagonal: M x d variances
  Tensor3 covariances;        // Full: M x d x d covariance matrices
  Matrix mixing;              // optional M x K mixing weights pi_jk (columns sum to 1); empty if none
  Labels owner;               // optional M owner classes (-1: shared); empty if none
  Vector class_priors;        // optional K priors P(C_k); empty if none

  std::size_t count() const { return means.shape(0); }
  std::size_t dim() const { return means.shape(1); }
  bool has_mixing() const { return mixing.size() != 0; }

  // Throws ShapeError naming the first inconsistency (array sizes, non-positive variances,
  // mixing columns not summing to 1 within 1e-6).
  void check() const;
};

// The centres `index` (ascending or not, no repeats) of `centres` with their shapes, mixing
// weights and owners; class priors as they are.
Centres select_centres(const Centres& centres, const std::vector<std::size_t>& index);


}  // namespace radial
