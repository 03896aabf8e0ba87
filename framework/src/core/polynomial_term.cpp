// The polynomial term of a conditionally positive definite basis (see polynomial_term.hpp).
#include "radial/core/polynomial_term.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "radial/core/errors.hpp"

namespace radial {

namespace {
// The largest degree the parameter takes (sdk::add_polynomial_param's at_most(4)).
constexpr std::int64_t max_polynomial_degree = 4;
}  // namespace

std::size_t monomial_count(std::size_t d, std::int64_t degree) {
  if (degree < 0) return 0;
  // C(d + k, k) by the product (d + 1)(d + 2)...(d + k) / k!, exact at every step.
  std::size_t count = 1;
  for (std::int64_t i = 1; i <= degree; ++i) {
    const std::size_t factor = d + std::size_t(i);
    if (count > std::numeric_limits<std::size_t>::max() / factor)
      return std::numeric_limits<std::size_t>::max();
    count = count * factor / std::size_t(i);
  }
  return count;
}

std::vector<std::vector<unsigned>> monomial_powers(std::size_t d, std::int64_t degree) {
  std::vector<std::vector<unsigned>> out;
  // combinations_with_replacement(range(d), deg) in lexicographic order, deg = 1..k.
  for (std::int64_t deg = 1; deg <= degree; ++deg) {
    std::vector<std::size_t> pick(std::size_t(deg), 0);
    if (d == 0) break;
    while (true) {
      std::vector<unsigned> powers(d, 0);
      for (const std::size_t v : pick) ++powers[v];
      out.push_back(std::move(powers));
      // the next non-decreasing sequence
      std::size_t i = pick.size();
      while (i > 0 && pick[i - 1] == d - 1) --i;
      if (i == 0) break;
      const std::size_t next = pick[i - 1] + 1;
      for (std::size_t j = i - 1; j < pick.size(); ++j) pick[j] = next;
    }
  }
  return out;
}

std::size_t design_polynomial_columns(const std::map<std::string, ParamValue>& params,
                                      std::size_t d) {
  const auto it = params.find(polynomial_param);
  if (it == params.end() || !std::holds_alternative<std::int64_t>(it->second)) return 1;
  const std::int64_t degree = std::get<std::int64_t>(it->second);
  if (degree < -1 || degree > max_polynomial_degree) return 0;
  return std::max<std::size_t>(1, monomial_count(d, degree));
}

std::int64_t polynomial_degree(const std::map<std::string, ParamValue>& params) {
  const auto it = params.find(polynomial_param);
  if (it == params.end() || !std::holds_alternative<std::int64_t>(it->second)) return -1;
  return std::get<std::int64_t>(it->second);
}

void PolynomialTerm::fit(const Matrix& centres) {
  if (!active()) return;
  const std::size_t m = centres.shape(0), d = centres.shape(1);
  const std::size_t q = monomial_count(d, degree_);
  if (q >= m)
    throw InputError("the polynomial term of degree " + std::to_string(degree_) + " in " +
                     std::to_string(d) + " inputs has " +
                     (q == std::numeric_limits<std::size_t>::max() ? std::string("too many")
                                                                   : std::to_string(q)) +
                     " monomials, but there are " + std::to_string(m) + " centres: the side "
                     "conditions need more centres than monomials; give more centres or a "
                     "lower basis.polynomial");
  shift_ = xt::zeros<double>({d});
  scale_ = xt::ones<double>({d});
  for (std::size_t k = 0; k < d && m > 0; ++k) {
    double lo = centres(0, k), hi = centres(0, k);
    for (std::size_t j = 1; j < m; ++j) {
      lo = std::min(lo, centres(j, k));
      hi = std::max(hi, centres(j, k));
    }
    shift_(k) = 0.5 * (lo + hi);
    const double half = 0.5 * (hi - lo);
    scale_(k) = half > 0 && std::isfinite(half) ? half : 1.0;  // SciPy: scale 0 -> 1
  }
  powers_ = monomial_powers(d, degree_);
}

void PolynomialTerm::evaluate(const double* x, std::size_t d, double* out) const {
  thread_local std::vector<double> u;
  u.resize(d);
  for (std::size_t k = 0; k < d; ++k) u[k] = (x[k] - shift_(k)) / scale_(k);
  for (std::size_t i = 0; i < powers_.size(); ++i) {
    double v = 1.0;
    for (std::size_t k = 0; k < d; ++k)
      for (unsigned e = 0; e < powers_[i][k]; ++e) v *= u[k];
    out[i] = v;
  }
}

void PolynomialTerm::save(State& state) const {
  if (!active()) return;
  state["polynomial_shift"] = shift_;
  state["polynomial_scale"] = scale_;
}

void PolynomialTerm::load(const State& state, const std::string& where) {
  if (!active()) {
    shift_ = Vector();
    scale_ = Vector();
    powers_.clear();
    return;
  }
  const Vector& shift = state_get<Vector>(state, "polynomial_shift", where);
  const Vector& scale = state_get<Vector>(state, "polynomial_scale", where);
  if (shift.size() != scale.size() || shift.size() == 0)
    throw ModelFileError(where + ": polynomial_shift has " + std::to_string(shift.size()) +
                         " entries and polynomial_scale " + std::to_string(scale.size()) +
                         "; they need one per input");
  for (std::size_t k = 0; k < shift.size(); ++k)
    if (!std::isfinite(shift(k)) || !(scale(k) > 0) || !std::isfinite(scale(k)))
      throw ModelFileError(where + ": polynomial_shift[" + std::to_string(k) + "] = " +
                           std::to_string(shift(k)) + ", polynomial_scale[" +
                           std::to_string(k) + "] = " + std::to_string(scale(k)) +
                           "; a shift must be finite and a scale finite and positive");
  // Fewer monomials than centres, which a model file cannot hold 2^24 of in any case: a damaged
  // length is refused before the exponents are listed.
  if (monomial_count(shift.size(), degree_) > (std::size_t(1) << 24))
    throw ModelFileError(where + ": a polynomial term of degree " + std::to_string(degree_) +
                         " in " + std::to_string(shift.size()) + " inputs has more than 2^24 "
                         "monomials; the model file is damaged");
  shift_ = shift;
  scale_ = scale;
  powers_ = monomial_powers(shift.size(), degree_);
}

}  // namespace radial
