#pragma once
// The `cubic` basis on Euclidean distances: phi(r) = r^3.

#include <cstdint>

#include <radial/network/basis.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/polynomial_basis.hpp>

namespace radial::plugins {

struct CubicOptions {
  std::int64_t polynomial = -1;  // the polynomial term's degree (radial/core/polynomial_term.hpp)
};

// r^3 is conditionally positive definite of order 2 (Fasshauer 2007, Theorem 8.16: (-1)^2 r^3),
// so its polynomial term needs degree >= 1 (SciPy's minimum for "cubic").
inline OptionTable<CubicOptions> cubic_table() {
  OptionTable<CubicOptions> t;
  sdk::add_polynomial_param(t, &CubicOptions::polynomial, 1, "cubic");
  return t;
}

class CubicBasis final : public sdk::PolynomialEuclideanBasis {
 public:
  explicit CubicBasis(CubicOptions options = {})
      : PolynomialEuclideanBasis(options.polynomial, "cubic") {}
  void map(Matrix& r2) const override;
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const override;
};

}  // namespace radial::plugins
