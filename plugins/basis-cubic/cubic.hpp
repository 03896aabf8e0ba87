#pragma once
// The `cubic` basis on Euclidean distances: phi(r) = r^3.

#include <radial/basis.hpp>

namespace radial::plugins {

class CubicBasis final : public EuclideanBasis {
 public:
  void map(Matrix& r2) const override;
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const override;
};

}  // namespace radial::plugins
