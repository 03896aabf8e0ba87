#pragma once
// The polynomial term of a conditionally positive definite basis (thin-plate, r4logr, cubic,
// multiquadric): the network
//
//   f(x) = sum_j w_j phi(||x - c_j||) + sum_i b_i p_i(x),    sum_j w_j p_i(c_j) = 0 for every i
//
// with p_i the monomials of degree <= k (Fasshauer, "Meshfree Approximation Methods with
// MATLAB", 2007, eqs. 6.2-6.3; SciPy's RBFInterpolator). A basis phi conditionally positive
// definite of order m needs k >= m - 1 for the interpolant to be unique; the side conditions
// P_c^T w = 0 (P_c: the monomials at the centres, M x q) make the system square.
//
// Where it lives: a parameter `polynomial = k` of the basis (sdk::add_polynomial_param below),
// since whether a kernel needs a polynomial, and which degree, is the kernel's property, and the
// basis parameters are what a model saves; the design matrix appends the monomials as columns
// [phi_1..phi_M, p_1..p_{q-1}, 1] (the constant monomial is the bias column, last as NETLAB);
// an output layer that imposes the side conditions says so (OutputLayer::side_conditions).
//
// The monomials are taken of (x - shift) / scale, shift and scale the centres' mid-range and
// half-range per input (1 where the range is 0), as SciPy takes them of its data points: this
// conditions the columns and changes the coefficients b, never the function f.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "radial/core/params.hpp"
#include "radial/core/state.hpp"
#include "radial/core/types.hpp"

namespace radial {

// The parameter name every basis with a polynomial term declares; the model store reads it to
// know the number of weight rows (M + q).
inline constexpr const char* polynomial_param = "polynomial";

// q = C(d + k, k), the monomials of degree <= k in d variables (the constant included); 0 for
// k = -1 (no term).
std::size_t monomial_count(std::size_t d, std::int64_t degree);

// The exponents of the monomials of degree 1..k (the constant left out: it is the bias), by
// degree, then as SciPy's _monomial_powers orders them: q - 1 rows of d exponents.
std::vector<std::vector<unsigned>> monomial_powers(std::size_t d, std::int64_t degree);

// q for a basis made from `params` (basis parameters as a model saves them) on d inputs: the
// `polynomial` entry's monomial count, or 1 (the bias alone) when there is none.
std::size_t design_polynomial_columns(const std::map<std::string, ParamValue>& params,
                                      std::size_t d);

// The degree k of the polynomial term a basis made from `params` has: the `polynomial` entry,
// or -1 (none) when there is none.
std::int64_t polynomial_degree(const std::map<std::string, ParamValue>& params);

class PolynomialTerm {
 public:
  PolynomialTerm() = default;
  explicit PolynomialTerm(std::int64_t degree) : degree_(degree) {}

  std::int64_t degree() const { return degree_; }
  bool active() const { return degree_ >= 0; }
  // q on d inputs (the constant included).
  std::size_t columns(std::size_t d) const { return monomial_count(d, degree_); }

  // shift and scale from the centres (M x d), as SciPy's from its data points. Called by the
  // basis's prepare(); does nothing without a term.
  void fit(const Matrix& centres);
  bool fitted() const { return shift_.size() != 0; }
  const Vector& shift() const { return shift_; }
  const Vector& scale() const { return scale_; }

  // The q - 1 non-constant monomials of one input row x (d values) into out[0..q-2]: the
  // design's columns M..M+q-2 (the bias column M+q-1 is the design matrix's). Needs fit().
  void evaluate(const double* x, std::size_t d, double* out) const;

  // shift and scale as state entries "polynomial_shift", "polynomial_scale" (nothing without a
  // term), and back; load checks them against d = their length (scale > 0, finite) and throws
  // ModelFileError naming `where`.
  void save(State& state) const;
  void load(const State& state, const std::string& where);

 private:
  std::int64_t degree_ = -1;
  Vector shift_, scale_;
  std::vector<std::vector<unsigned>> powers_;  // monomial_powers(d, degree), set by fit/load
};

}  // namespace radial
