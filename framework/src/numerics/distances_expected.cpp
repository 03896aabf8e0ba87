// The distances of a row with missing inputs (radial/numerics/distances.hpp): to its observed
// coordinates alone (compute_observed), and the expected distances over the missing ones under
// an input model (compute_expected, InputModel).
#include "radial/numerics/distances.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "distances_impl.hpp"
#include "observed_gaussian.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial {

void SquaredDistances::compute_observed(const double* x, double* r2, double* log_det) const {
  const Impl& s = *impl_;
  thread_local std::vector<std::size_t> observed, missing;
  thread_local observed_gaussian::Scratch scratch;
  observed_gaussian::split(x, s.d, observed, missing);
  for (std::size_t j = 0; j < s.m; ++j) {
    const observed_gaussian::Result g = observed_gaussian::evaluate(
        s.observed_centres, j, x, observed, missing, scratch, nullptr, nullptr);
    r2[j] = g.r2;
    if (log_det) log_det[j] = g.log_det;
  }
}

namespace {

using text::number;

// a (k x k, row-major, symmetric) -> its lower Cholesky factor in place; returns log |a|.
// Throws NumericalError naming centre j when a is not positive definite.
double cholesky_log_det(std::vector<double>& a, std::size_t k, std::size_t j) {
  double log_det = 0;
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t col = 0; col <= r; ++col) {
      double v = a[r * k + col];
      for (std::size_t i = 0; i < col; ++i) v -= a[r * k + i] * a[col * k + i];
      if (r == col) {
        if (!(v > 0) || !std::isfinite(v))
          throw NumericalError("the expected activation of centre " + std::to_string(j) +
                               " over a row's missing inputs: its conditional covariance plus "
                               "the input model's is not positive definite (pivot " +
                               number(v) + ")");
        a[r * k + r] = std::sqrt(v);
        log_det += 2.0 * std::log(a[r * k + r]);
      } else {
        a[r * k + col] = v / a[col * k + col];
      }
    }
  return log_det;
}

}  // namespace

// The expected activation over the missing coordinates (distances.hpp). With e_o = x_o - c_o the
// basis's quadratic form splits as the density of a Gaussian does (Ghahramani & Jordan 1994,
// section 3: S^{-1}'s Schur complement is S_oo^{-1}):
//   q(x) = e_o^T S_oo^{-1} e_o + (x_m - c~)^T T^{-1} (x_m - c~),
// c~ = c_m + S_mo S_oo^{-1} e_o and T = S_mm - S_mo S_oo^{-1} S_om (observed_gaussian::evaluate
// gives both). Then, for x_m ~ N(mu, C), the Gaussian convolution (the product of two Gaussian
// densities integrates to a Gaussian in the difference of their means; Petersen & Pedersen,
// The Matrix Cookbook, section 8.1.8):
//   E exp(-(x_m - c~)^T T^{-1} (x_m - c~) / 2) = (2 pi)^{k/2} |T|^{1/2} N(mu | c~, T + C)
//     = |T|^{1/2} |T + C|^{-1/2} exp(-(mu - c~)^T (T + C)^{-1} (mu - c~) / 2).
// Spherical and Diagonal shapes with a Diagonal input model make it a product over the missing
// coordinates a: sqrt(t_a / (t_a + v_a)) exp(-(mu_a - c_a)^2 / (2 (t_a + v_a))).
// compute_expected for a basis whose shapes are axis-aligned (none, spherical, diagonal): its
// conditional of the missing inputs given the observed ones is c_jm with covariance T = diag
// (s_jm), so r2_eff = sum_o (x_a - c_ja)^2 / s_ja + (mu - c_jm)^T (T + C)^-1 (mu - c_jm)
// + log |T + C| - log |T|. With a full input-model C and a spherical (or Euclidean) basis,
// T + C = Q (s_j + Lambda) Q^T for the eigenvectors of C, found once per row for every centre:
// z = Q^T (mu - c_jm), the quadratic is sum z_i^2 / (s_j + lambda_i) and the log-determinants'
// difference sum log(1 + lambda_i / s_j). A diagonal basis takes a Cholesky of T + C per centre
// (of the missing block only). The same values as the general path up to rounding.
void SquaredDistances::Impl::expected_axis_aligned(const double* x,
                                                   const std::vector<std::size_t>& missing,
                                                   const std::vector<double>& mu,
                                                   const std::vector<double>& c, bool model_full,
                                                   double* r2) const {
  const std::size_t k = missing.size();
  const Centres& cs = observed_centres;
  const auto variance = [&](std::size_t j, std::size_t a) {
    return shape == Shape::Diagonal ? cs.diagonal(j, a)
           : shape == Shape::Spherical ? cs.variances(j)
                                       : 1.0;
  };
  const bool shared = model_full && shape != Shape::Diagonal;  // one eigenbasis for all centres
  thread_local std::vector<double> lambda, q, qmu, a;
  if (shared) {
    xt::xtensor<double, 2, xt::layout_type::column_major> cm = xt::zeros<double>({k, k});
    for (std::size_t r = 0; r < k; ++r)
      for (std::size_t col = 0; col < k; ++col) cm(r, col) = c[r * k + col];
    xt::xtensor<double, 1, xt::layout_type::column_major> e = xt::zeros<double>({k});
    if (xt::lapack::syevd(cm, 'V', 'L', e) != 0)
      throw NumericalError("the expected activation: the eigendecomposition of the input "
                           "model's conditional covariance did not converge");
    lambda.resize(k);
    q.resize(k * k);  // q[r * k + i] = component r of eigenvector i
    qmu.resize(k);
    for (std::size_t i = 0; i < k; ++i) {
      lambda[i] = std::max(e(i), 0.0);  // rounding below 0 in a PSD matrix
      double v = 0;
      for (std::size_t r = 0; r < k; ++r) {
        q[r * k + i] = cm(r, i);
        v += cm(r, i) * mu[r];
      }
      qmu[i] = v;
    }
  } else if (model_full) {
    a.resize(k * k);
  }
  // The observed part as a sum over every coordinate of x with its missing cells at 0, less
  // the missing cells' c_ja^2 / s_ja: contiguous loops rather than gathers.
  thread_local std::vector<double> x0, cm;
  x0.assign(x, x + d);
  for (const std::size_t i : missing) x0[i] = 0.0;
  cm.resize(k);
  for (std::size_t j = 0; j < m; ++j) {
    const double* cj = &cs.means(j, 0);
    double sum = 0;
    if (shape == Shape::Diagonal) {
      const double* sj = &cs.diagonal(j, 0);
      for (std::size_t a = 0; a < d; ++a) {
        const double e = x0[a] - cj[a];
        sum += e * e / sj[a];
      }
      for (const std::size_t i : missing) sum -= cj[i] * cj[i] / sj[i];
    } else {
      for (std::size_t a = 0; a < d; ++a) {
        const double e = x0[a] - cj[a];
        sum += e * e;
      }
      for (const std::size_t i : missing) sum -= cj[i] * cj[i];
      sum /= variance(j, 0);
    }
    sum = std::max(sum, 0.0);
    for (std::size_t r = 0; r < k; ++r) cm[r] = cj[missing[r]];
    if (!model_full) {  // independent columns: one term per missing input
      for (std::size_t i = 0; i < k; ++i) {
        const double t = variance(j, missing[i]), e = mu[i] - cj[missing[i]];
        sum += e * e / (t + c[i]) + std::log1p(c[i] / t);
      }
    } else if (shared) {
      const double t = variance(j, 0);
      // Q^T c_jm, by rows of Q so that the k sums run side by side.
      thread_local std::vector<double> qc;
      qc.assign(k, 0.0);
      for (std::size_t r = 0; r < k; ++r) {
        const double* qr = &q[r * k];
        const double cr = cm[r];
        for (std::size_t i = 0; i < k; ++i) qc[i] += qr[i] * cr;
      }
      double product = 1, logs = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const double z = qmu[i] - qc[i];
        sum += z * z / (t + lambda[i]);
        product *= 1.0 + lambda[i] / t;
        if (product > 1e200) {  // one log for many factors, without overflow
          logs += std::log(product);
          product = 1;
        }
      }
      sum += logs + std::log(product);
    } else {  // diagonal basis, full model: A = T + C = L L^T per centre
      double log_t = 0;
      for (std::size_t r = 0; r < k; ++r) {
        const double t = variance(j, missing[r]);
        log_t += std::log(t);
        for (std::size_t col = 0; col < k; ++col) a[r * k + col] = c[r * k + col];
        a[r * k + r] += t;
      }
      const double log_a = cholesky_log_det(a, k, j);
      thread_local std::vector<double> z;
      z.resize(k);
      for (std::size_t r = 0; r < k; ++r) {
        double v = mu[r] - cj[missing[r]];
        for (std::size_t i = 0; i < r; ++i) v -= a[r * k + i] * z[i];
        z[r] = v / a[r * k + r];
        sum += z[r] * z[r];
      }
      sum += log_a - log_t;
    }
    r2[j] = sum;
  }
}

struct InputModel::Impl {
  Centres model;
  observed_gaussian::Precisions precisions;  // Full only
};

InputModel::InputModel(const Centres& model) : impl_(std::make_unique<Impl>()) {
  if (model.count() != 1 || (model.shape != Shape::Diagonal && model.shape != Shape::Full))
    throw ShapeError("SquaredDistances: the input model must be one Gaussian with a diagonal or "
                     "full covariance");
  impl_->model = model;
  if (model.shape == Shape::Full) impl_->precisions = observed_gaussian::full_precisions(model);
}
InputModel::~InputModel() = default;
InputModel::InputModel(InputModel&&) noexcept = default;
InputModel& InputModel::operator=(InputModel&&) noexcept = default;
std::size_t InputModel::dim() const { return impl_->model.dim(); }
bool InputModel::full() const { return impl_->model.shape == Shape::Full; }

void InputModel::conditional(const double* x, const std::vector<std::size_t>& observed,
                             const std::vector<std::size_t>& missing, std::vector<double>& mu,
                             std::vector<double>& c) const {
  const Centres& model = impl_->model;
  const std::size_t k = missing.size();
  mu.resize(k);
  if (!full()) {
    c.resize(k);
    for (std::size_t i = 0; i < k; ++i) {
      mu[i] = model.means(0, missing[i]);
      c[i] = model.diagonal(0, missing[i]);
    }
    return;
  }
  thread_local observed_gaussian::Scratch scratch;
  thread_local std::vector<double> xhat;
  xhat.resize(model.dim());
  c.resize(k * k);
  observed_gaussian::evaluate(impl_->precisions, model, 0, x, observed, missing, scratch,
                              xhat.data(), c.data());
  for (std::size_t i = 0; i < k; ++i) mu[i] = xhat[missing[i]];
}

void SquaredDistances::compute_expected(const double* x, const Centres& model, double* r2) const {
  if (model.dim() != impl_->d)
    throw ShapeError("SquaredDistances: the input model must be one Gaussian with a diagonal or "
                     "full covariance in the " + std::to_string(impl_->d) + " input dimensions");
  compute_expected(x, InputModel(model), r2);
}

void SquaredDistances::compute_expected(const double* x, const InputModel& model,
                                        double* r2) const {
  const Impl& s = *impl_;
  if (model.dim() != s.d)
    throw ShapeError("SquaredDistances: the input model must be one Gaussian with a diagonal or "
                     "full covariance in the " + std::to_string(s.d) + " input dimensions");
  thread_local std::vector<std::size_t> observed, missing;
  thread_local observed_gaussian::Scratch scratch;
  thread_local std::vector<double> mu, c, xhat, t, a, z;
  observed_gaussian::split(x, s.d, observed, missing);
  const std::size_t k = missing.size();
  const bool model_full = model.full(), basis_full = s.shape == Shape::Full;
  model.conditional(x, observed, missing, mu, c);
  xhat.resize(s.d);
  if (!basis_full && k > 0) {
    s.expected_axis_aligned(x, missing, mu, c, model_full, r2);
    return;
  }
  t.resize(basis_full ? k * k : k);
  a.resize(k * k);
  z.resize(k);
  for (std::size_t j = 0; j < s.m; ++j) {
    const observed_gaussian::Result g = observed_gaussian::evaluate(
        s.observed_centres, j, x, observed, missing, scratch, xhat.data(), t.data());
    double sum = g.r2;
    if (!basis_full && !model_full) {
      for (std::size_t i = 0; i < k; ++i) {
        const double e = mu[i] - xhat[missing[i]], total = t[i] + c[i];
        sum += e * e / total + std::log1p(c[i] / t[i]);
      }
      r2[j] = sum;
      continue;
    }
    // A = T + C = L L^T; (mu - c~)^T A^{-1} (mu - c~) = |L^{-1} (mu - c~)|^2.
    for (std::size_t r = 0; r < k; ++r)
      for (std::size_t col = 0; col < k; ++col)
        a[r * k + col] = (basis_full ? t[r * k + col] : r == col ? t[r] : 0.0) +
                         (model_full ? c[r * k + col] : r == col ? c[r] : 0.0);
    double log_t = 0;
    if (basis_full) {
      log_t = cholesky_log_det(t, k, j);
    } else {
      for (std::size_t i = 0; i < k; ++i) log_t += std::log(t[i]);
    }
    const double log_a = cholesky_log_det(a, k, j);
    for (std::size_t r = 0; r < k; ++r) {
      double v = mu[r] - xhat[missing[r]];
      for (std::size_t i = 0; i < r; ++i) v -= a[r * k + i] * z[i];
      z[r] = v / a[r * k + r];
      sum += z[r] * z[r];
    }
    r2[j] = sum + log_a - log_t;
  }
}

}  // namespace radial
