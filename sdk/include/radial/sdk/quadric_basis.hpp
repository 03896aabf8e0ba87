#pragma once
// The quadric bases phi(r) = (r^2 + c^2)^(beta/2) as a basis: the multiquadric (beta = 1, Hardy
// 1971) and the inverse multiquadric (beta = -1, Micchelli 1986) differ only in beta and in
// the bound that keeps phi^2 summable, so each plugin is this class with its own beta.

#include <string>

#include <radial/network/basis.hpp>
#include <radial/numerics/radial_functions.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/polynomial_basis.hpp>
#include <radial/core/state.hpp>

namespace radial::sdk {

struct QuadricOptions {
  double c = 1.0;  // quadric_table<beta>() bounds it
  std::int64_t polynomial = -1;  // the multiquadric's polynomial term (radial/core/polynomial_term.hpp)
};

// The parameter c, declared once: the registration and the check of a loaded model's state use
// it. The output fit sums phi^2 over the rows, so c is bounded where phi is: phi >= c for
// beta = 1, phi <= 1/c for beta = -1.
template <int beta>
OptionTable<QuadricOptions> quadric_table() {
  static_assert(beta == 1 || beta == -1, "the quadric bases have beta = 1 or -1");
  OptionTable<QuadricOptions> t;
  if constexpr (beta == 1) {
    t.bind("c", &QuadricOptions::c,
           "shape parameter c of sqrt(r^2 + c^2), in input units; at most 1e100, since phi >= c "
           "and the output fit sums phi^2 over the rows")
        .above(0.0)
        .at_most(1e100);
    // sqrt(r^2 + c^2) is conditionally negative definite of order 1 (Fasshauer 2007,
    // Theorem 8.15, with beta = 1/2: its negative is CPD of order 1), so degree >= 0.
    add_polynomial_param(t, &QuadricOptions::polynomial, 0, "multiquadric");
  } else {
    t.bind("c", &QuadricOptions::c,
           "shape parameter c of 1 / sqrt(r^2 + c^2), in input units; at least 1e-100, since "
           "phi <= 1/c and the output fit sums phi^2 over the rows")
        .at_least(1e-100);
  }
  return t;
}

// phi = (r^2 + c^2)^(beta/2) on Euclidean distances, positive everywhere, so
// log phi = (beta/2) log(r^2 + c^2). The state is c itself, not c^2: c^2 may under- or overflow
// where c does not; with a polynomial term (the multiquadric's) also its shift and scale.
template <int beta>
class QuadricBasis final : public PolynomialEuclideanBasis {
 public:
  explicit QuadricBasis(QuadricOptions options)
      : PolynomialEuclideanBasis(beta == 1 ? options.polynomial : -1, component()),
        shift_(options.c) {}

  void map(Matrix& r2) const override { shift_.power(r2, beta); }
  bool differentiable() const override { return true; }
  void map_derivative(const Matrix&, const Matrix& phi, Matrix& dphi) const override {
    shift_.power_derivative(phi, beta, dphi);  // 1 / (2 phi), or -phi^3 / 2
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override { shift_.log_power(r2, beta); }
  State state() const override {
    State s = PolynomialEuclideanBasis::state();
    s["c"] = shift_.c();
    return s;
  }
  void load_state(const State& state) override {
    shift_ = QuadricShift(
        state_param(state, quadric_table<beta>().params().front(), "basis " + component()));
    PolynomialEuclideanBasis::load_state(state);
  }

 private:
  static std::string component() { return beta == 1 ? "multiquadric" : "inverse-multiquadric"; }

  QuadricShift shift_;
};

}  // namespace radial::sdk
