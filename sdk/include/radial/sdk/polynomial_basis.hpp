#pragma once
// A Euclidean basis with an optional polynomial term (radial/core/polynomial_term.hpp): the
// conditionally positive definite bases (thin-plate, r4logr, cubic, multiquadric) derive from
// PolynomialEuclideanBasis and declare the parameter with add_polynomial_param, so
// `polynomial = 1` beside `thin-plate` (with `centres` `subset` `all = true` and the
// `least-squares` output) is SciPy's RBFInterpolator(kernel = "thin_plate_spline").

#include <cstdint>
#include <string>

#include <radial/network/basis.hpp>
#include <radial/core/errors.hpp>
#include <radial/core/option_table.hpp>
#include <radial/core/polynomial_term.hpp>

namespace radial::sdk {

// The degree k of the polynomial term, -1 for none (the default: a pipeline or model without
// the parameter keeps its network). `min_degree` is the kernel's m - 1 for a kernel
// conditionally positive definite of order m (Fasshauer 2007, ch. 8; SciPy's minimum degrees):
// a degree from 0 to min_degree - 1 is refused, since the interpolation system may then be
// singular.
template <class Options>
void add_polynomial_param(OptionTable<Options>& t, std::int64_t Options::*member,
                          std::int64_t min_degree, std::string kernel) {
  t.bind(polynomial_param, member,
         "degree k of the polynomial term beside the basis, with the side conditions "
         "P_c^T w = 0 at the centres (SciPy RBFInterpolator's `degree`); -1: none. Needs an "
         "output layer that imposes them (least-squares). At least " +
             std::to_string(min_degree) + " for " + kernel)
      .at_least(-1)
      .at_most(4);
  t.check([member, min_degree, kernel](Options& o) {
    const std::int64_t k = o.*member;
    if (k >= 0 && k < min_degree)
      throw ParameterError("polynomial = " + std::to_string(k) + ". Violated constraint: " +
                           "polynomial >= " + std::to_string(min_degree) + " or polynomial = -1 (" +
                           kernel + " is conditionally positive definite of order " +
                           std::to_string(min_degree + 1) +
                           ": a lower degree can leave the interpolation system singular)");
  });
}

// EuclideanBasis with a polynomial term of the given degree: prepare() fits its shift and
// scale on the centres, the state saves them, polynomial() hands the term to the design matrix
// (null when the degree is -1). A derived basis that saves more adds to state() and calls
// PolynomialEuclideanBasis::load_state.
class PolynomialEuclideanBasis : public EuclideanBasis {
 public:
  PolynomialEuclideanBasis(std::int64_t degree, std::string component)
      : term_(degree), component_(std::move(component)) {}

  void prepare(Centres& centres, FitContext&) override { term_.fit(centres.means); }
  const PolynomialTerm* polynomial() const final { return term_.active() ? &term_ : nullptr; }
  State state() const override {
    State s;
    term_.save(s);
    return s;
  }
  void load_state(const State& state) override { term_.load(state, "basis " + component_); }

 private:
  PolynomialTerm term_;
  std::string component_;
};

}  // namespace radial::sdk
