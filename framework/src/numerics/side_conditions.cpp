// The side conditions of a polynomial term as a change of variables (see side_conditions.hpp).
#include "radial/numerics/side_conditions.hpp"

#include <algorithm>
#include <cmath>

#include "radial/core/errors.hpp"

namespace radial {

SideConditions::SideConditions(const Matrix& p_at_centres, const std::string& where) {
  m_ = p_at_centres.shape(0);
  q_ = p_at_centres.shape(1);
  if (m_ <= q_)
    throw InputError(where + ": the polynomial term has " + std::to_string(q_) +
                     " monomials but there are " + std::to_string(m_) + " centres; the side "
                     "conditions need more centres than monomials (give more centres or a "
                     "lower degree)");
  Matrix a = p_at_centres;
  double largest = 0;  // the largest column norm, for the rank test
  for (std::size_t j = 0; j < q_; ++j) {
    double s = 0;
    for (std::size_t i = 0; i < m_; ++i) s += a(i, j) * a(i, j);
    largest = std::max(largest, std::sqrt(s));
  }
  for (std::size_t j = 0; j < q_; ++j) {
    double norm = 0;
    for (std::size_t i = j; i < m_; ++i) norm += a(i, j) * a(i, j);
    norm = std::sqrt(norm);
    // |R_jj| = norm: column j's part outside the span of the columns before it.
    if (!(norm > 1e-10 * largest))
      throw InputError(where + ": the polynomial term is not unisolvent on the centres (its " +
                       std::to_string(q_) + " monomials at the " + std::to_string(m_) +
                       " centres have rank " + std::to_string(j) + " < " +
                       std::to_string(q_) + ", e.g. centres on a line for degree 1 in two "
                       "dimensions), so the side conditions leave the system singular; lower "
                       "basis.polynomial or spread the centres");
    Vector v = xt::zeros<double>({m_});
    const double alpha = a(j, j) > 0 ? -norm : norm;
    for (std::size_t i = j; i < m_; ++i) v(i) = a(i, j);
    v(j) -= alpha;
    double vv = 0;
    for (std::size_t i = j; i < m_; ++i) vv += v(i) * v(i);
    const double tau = 2.0 / vv;
    // a := H a on the remaining columns
    for (std::size_t c = j; c < q_; ++c) {
      double s = 0;
      for (std::size_t i = j; i < m_; ++i) s += v(i) * a(i, c);
      s *= tau;
      for (std::size_t i = j; i < m_; ++i) a(i, c) -= s * v(i);
    }
    reflectors_.push_back(std::move(v));
    tau_.push_back(tau);
  }
}

void SideConditions::right_multiply(Matrix& a) const {
  if (a.shape(1) != m_)
    throw ShapeError("SideConditions: a matrix of " + std::to_string(a.shape(1)) +
                     " columns for " + std::to_string(m_) + " centres");
  const std::size_t rows = a.shape(0);
  // a Q = a H_1 H_2 ... H_q: each row r := r - tau (r . v) v^T.
  for (std::size_t j = 0; j < q_; ++j) {
    const Vector& v = reflectors_[j];
    for (std::size_t r = 0; r < rows; ++r) {
      double* row = a.data() + r * m_;
      double s = 0;
      for (std::size_t i = j; i < m_; ++i) s += row[i] * v(i);
      s *= tau_[j];
      for (std::size_t i = j; i < m_; ++i) row[i] -= s * v(i);
    }
  }
}

Matrix SideConditions::expand(const Matrix& u) const {
  if (u.shape(0) != m_ - q_)
    throw ShapeError("SideConditions: " + std::to_string(u.shape(0)) + " coefficients for " +
                     std::to_string(m_ - q_) + " directions of the side conditions' null space");
  const std::size_t k = u.shape(1);
  Matrix w = xt::zeros<double>({m_, k});
  for (std::size_t i = q_; i < m_; ++i)
    for (std::size_t c = 0; c < k; ++c) w(i, c) = u(i - q_, c);
  // Q [0; u] = H_1 (H_2 (... H_q [0; u])).
  for (std::size_t j = q_; j-- > 0;) {
    const Vector& v = reflectors_[j];
    for (std::size_t c = 0; c < k; ++c) {
      double s = 0;
      for (std::size_t i = j; i < m_; ++i) s += v(i) * w(i, c);
      s *= tau_[j];
      for (std::size_t i = j; i < m_; ++i) w(i, c) -= s * v(i);
    }
  }
  return w;
}

}  // namespace radial
