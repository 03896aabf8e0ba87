#pragma once
// The `r4logr` basis on Euclidean distances: phi(r) = r^4 log r, 0 at r = 0.

#include <radial/basis.hpp>

namespace radial::plugins {

class R4LogRBasis final : public EuclideanBasis {
 public:
  void map(Matrix& r2) const override;
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const override;
};

}  // namespace radial::plugins
