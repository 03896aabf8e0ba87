#pragma once
// The even-order polyharmonic splines as a basis: thin-plate (k = 1) and NETLAB's r4logr
// (k = 2) differ only in k, so each plugin is this class with its own.

#include <cstdint>
#include <string>

#include <radial/network/basis.hpp>
#include <radial/numerics/radial_functions.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/polynomial_basis.hpp>

namespace radial::sdk {

struct PolyharmonicOptions {
  std::int64_t polynomial = -1;  // the polynomial term's degree (radial/core/polynomial_term.hpp)
};

// r^(2k) log r is conditionally positive definite of order k + 1 (Fasshauer 2007, Theorem
// 8.17; with the sign (-1)^(k+1), so r^2 log r itself, -r^4 log r), so its polynomial term
// needs degree >= k.
template <unsigned k>
OptionTable<PolyharmonicOptions> polyharmonic_table(const std::string& kernel) {
  OptionTable<PolyharmonicOptions> t;
  add_polynomial_param(t, &PolyharmonicOptions::polynomial, std::int64_t(k), kernel);
  return t;
}

// phi(r) = r^(2k) log r = 0.5 (r^2)^k log r^2, 0 at r = 0 (radial::polyharmonic_log), on
// Euclidean distances, with an optional polynomial term and nothing else to fit or save.
template <unsigned k>
class PolyharmonicLogBasis final : public PolynomialEuclideanBasis {
 public:
  explicit PolyharmonicLogBasis(PolyharmonicOptions options = {})
      : PolynomialEuclideanBasis(options.polynomial, k == 1 ? "thin-plate" : "r4logr") {}
  void map(Matrix& r2) const override { polyharmonic_log(r2, k); }
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix& r2, const Matrix&, Matrix& dphi) const override {
    polyharmonic_log_derivative(r2, k, dphi);  // 0.5 (r^2)^(k-1) (k log r^2 + 1)
  }
};

}  // namespace radial::sdk
