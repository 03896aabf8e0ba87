#pragma once
// The even-order polyharmonic splines as a basis: thin-plate (k = 1) and NETLAB's r4logr
// (k = 2) differ only in k, so each plugin is this class with its own.

#include <radial/basis.hpp>
#include <radial/numerics/radial_functions.hpp>

namespace radial::sdk {

// phi(r) = r^(2k) log r = 0.5 (r^2)^k log r^2, 0 at r = 0 (radial::polyharmonic_log), on
// Euclidean distances, with nothing to fit to the centres or save.
template <unsigned k>
class PolyharmonicLogBasis final : public EuclideanBasis {
 public:
  void map(Matrix& r2) const override { polyharmonic_log(r2, k); }
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix& r2, const Matrix&, Matrix& dphi) const override {
    polyharmonic_log_derivative(r2, k, dphi);  // 0.5 (r^2)^(k-1) (k log r^2 + 1)
  }
};

}  // namespace radial::sdk
