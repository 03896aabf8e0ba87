#pragma once
// The `multiquadric` basis on Euclidean distances: phi(r) = sqrt(r^2 + c^2) (Hardy 1971).

#include <radial/basis.hpp>
#include <radial/numerics/radial_functions.hpp>
#include <radial/option_table.hpp>

namespace radial::plugins {

struct MultiquadricOptions {
  double c = 1.0;  // 0 < c <= 1e100: multiquadric_table()
};

// The parameter c, declared once: the registration and the check of a loaded model's state use
// it.
OptionTable<MultiquadricOptions> multiquadric_table();

class MultiquadricBasis final : public EuclideanBasis {
 public:
  explicit MultiquadricBasis(MultiquadricOptions options) : shift_(options.c) {}

  // phi = (r^2 + c^2)^(1/2), positive everywhere, so log phi = 0.5 log(r^2 + c^2).
  void map(Matrix& r2) const override { shift_.power(r2, 1); }
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix&, const Matrix& phi, Matrix& dphi) const override {
    shift_.power_derivative(phi, 1, dphi);  // 1 / (2 phi)
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override { shift_.log_power(r2, 1); }
  State state() const override;
  void load_state(const State& state) override;

 private:
  QuadricShift shift_;
};

}  // namespace radial::plugins
