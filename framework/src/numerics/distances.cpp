// Blocked squared distances by the GEMM identity, Euclidean or Mahalanobis under the centres'
// shapes. Per-centre factors (inverse variances, Cholesky whitening) are built once here; each
// compute() is one or two GEMMs into the output plus a fused loop.
#include "radial/numerics/distances.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>
#include <xtensor/xview.hpp>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "observed_gaussian.hpp"
#include "radial/errors.hpp"
#include "radial/numerics/cpu.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/text.hpp"

namespace radial {

namespace {

// Whitened GEMM columns per chunk of centres (Full shape): bounds the scratch block to
// block_rows x 256 doubles while keeping the GEMM wide enough to run at BLAS speed.
constexpr std::size_t full_chunk_columns = 256;

std::string centre_name(std::size_t j, std::size_t m) {
  return "centre " + std::to_string(j) + " (0-based, of " + std::to_string(m) + ")";
}

using text::number;

// Row-major scratch reused across calls on the same thread, so compute() stays const and
// thread-safe without allocating on every block.
Matrix& scratch_whitened() {
  thread_local Matrix m;
  return m;
}
// Grow-only, so a short last block does not reallocate it twice per pass.
std::vector<double>& scratch_features() {
  thread_local std::vector<double> v;
  return v;
}

// Quadratic features only up to this dimension (P = d(d+1)/2 + d + 1 columns per row).
constexpr std::size_t quadratic_max_dim = 64;
// Largest (|c'|^2 + tr S) tr P for the quadratic form: its terms then stay below ~1e8 for
// points within a centre's spread, so rounding (1e-16 relative to them) stays below ~1e-7.
constexpr double quadratic_max_term = 1e8;

#if defined(__x86_64__) && defined(__GNUC__)
#define RADIAL_DISTANCES_AVX512 1
// [(y_a y_b)_{a<=b}, y, 1] per row, y = x - g (d <= 64), 8 products per instruction; the same
// products as the scalar loop, so the same bits.
__attribute__((target("avx512f"))) void quadratic_features_avx512(const double* x,
                                                                  std::size_t rows,
                                                                  std::size_t d, const double* g,
                                                                  double* out,
                                                                  std::size_t features) {
  alignas(64) double y[quadratic_max_dim + 8];
  const std::size_t pairs = d * (d + 1) / 2;
  for (std::size_t n = 0; n < rows; ++n, x += d, out += features) {
    for (std::size_t k = 0; k < d; ++k) y[k] = x[k] - g[k];
    double* o = out;
    for (std::size_t a = 0; a < d; ++a) {
      const __m512d ya = _mm512_set1_pd(y[a]);
      for (std::size_t b = a; b < d; b += 8) {
        const std::size_t left = d - b;
        const __mmask8 k = left >= 8 ? __mmask8(0xff) : __mmask8((1u << left) - 1u);
        _mm512_mask_storeu_pd(o + (b - a), k, _mm512_mul_pd(ya, _mm512_maskz_loadu_pd(k, y + b)));
      }
      o += d - a;
    }
    for (std::size_t k = 0; k < d; ++k) out[pairs + k] = y[k];
    out[pairs + d] = 1.0;
  }
}
#endif

}  // namespace

struct SquaredDistances::Impl {
  Metric metric = Metric::Euclidean;
  Shape shape = Shape::None;  // None: Euclidean distances
  std::size_t m = 0, d = 0;
  Vector log_det;
  // The centres with the shape of the metric (None for Euclidean), for rows with missing cells
  // (compute_observed).
  Centres observed_centres;

  // Euclidean and Spherical: ||x||^2 + ||c_j||^2 - 2 x.c_j, then / sigma_j^2.
  Matrix means;
  Vector mean_norms;
  Vector inverse_variance;

  // Diagonal: sum_d x_d^2 / s_jd - 2 sum_d x_d c_jd / s_jd + sum_d c_jd^2 / s_jd.
  Matrix inverse_diagonal;  // M x d, 1 / s_jd
  Matrix scaled_means;      // M x d, c_jd / s_jd
  Vector diagonal_constant; // M

  // Full: S_j = L_j L_j^T; z = L_j^{-1} x for every centre of a chunk in one GEMM,
  // whitened[:, jj*d + k] = row k of L_{j0+jj}^{-1}, and c'_j = L_j^{-1} c_j.
  std::size_t chunk = 0;            // centres per chunk
  std::vector<Matrix> whitening;    // d x (chunk*d) each; the last is zero-padded
  Matrix whitened_means;            // M x d

  // Feature form (Diagonal, Full quadratic): r2 = max(0, F W).
  std::size_t features = 0;         // P; 0: no feature form
  Matrix coefficients;              // P x M
  Vector reference;                 // d

  // The per-centre factors of each shape, built once by the constructor.
  void prepare_euclidean(const Centres& centres);
  void prepare_diagonal(const Centres& centres);
  void prepare_full(const Centres& centres, FullForm form);
  void store_whitening(const Centres& centres, std::size_t j, const Matrix& l_inv);
  bool quadratic_column(const Centres& centres, std::size_t j, const Matrix& l_inv, FullForm form,
                        Matrix& out) const;

  void make_features(const double* x, std::size_t rows, Matrix& f) const;
  void make_features(const double* x, std::size_t rows, double* out) const;
  void expected_axis_aligned(const double* x, const std::vector<std::size_t>& missing,
                             const std::vector<double>& mu, const std::vector<double>& c,
                             bool model_full, double* r2) const;
  void compute_features(const Matrix& x, Matrix& r2) const;
  void compute_euclidean(const Matrix& x, Matrix& r2) const;
  void compute_full(const Matrix& x, Matrix& r2) const;
};

namespace {

// Cholesky S_j = L L^T from the lower triangle of centre j's covariance (l: d x d).
void cholesky_factor(const Centres& centres, std::size_t j, Matrix& l) {
  const std::size_t d = centres.dim();
  l.fill(0.0);
  for (std::size_t a = 0; a < d; ++a) {
    for (std::size_t b = 0; b <= a; ++b) {
      double sum = centres.covariances(j, a, b);
      for (std::size_t k = 0; k < b; ++k) sum -= l(a, k) * l(b, k);
      if (a == b) {
        if (!(sum > 0) || !std::isfinite(sum))
          throw ShapeError("SquaredDistances: the covariance of " +
                           centre_name(j, centres.count()) +
                           " is not positive definite (Cholesky pivot " + std::to_string(a) +
                           " is " + number(sum) + "); set a variance floor or a "
                           "regularised / diagonal covariance in the centre learner");
        l(a, a) = std::sqrt(sum);
      } else {
        l(a, b) = sum / l(b, b);
      }
    }
  }
}

// L^{-1} by forward substitution, column by column of the identity.
void invert_lower(const Matrix& l, Matrix& l_inv) {
  const std::size_t d = l.shape(0);
  l_inv.fill(0.0);
  for (std::size_t col = 0; col < d; ++col) {
    for (std::size_t a = col; a < d; ++a) {
      double sum = a == col ? 1.0 : 0.0;
      for (std::size_t k = col; k < a; ++k) sum -= l(a, k) * l_inv(k, col);
      l_inv(a, col) = sum / l(a, a);
    }
  }
}

}  // namespace

SquaredDistances::SquaredDistances(const Centres& centres, Metric metric, FullForm form)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  if (centres.means.dimension() != 2)
    throw ShapeError("SquaredDistances: centre means must be an M x d matrix");
  s.metric = metric;
  s.m = centres.count();
  s.d = centres.dim();
  s.shape = metric == Metric::Euclidean ? Shape::None : centres.shape;
  s.log_det = xt::zeros<double>({s.m});
  s.reference = xt::zeros<double>({s.d});
  s.observed_centres.means = centres.means;
  s.observed_centres.shape = s.shape;
  if (s.shape == Shape::Spherical) s.observed_centres.variances = centres.variances;
  if (s.shape == Shape::Diagonal) s.observed_centres.diagonal = centres.diagonal;
  if (s.shape == Shape::Full) s.observed_centres.covariances = centres.covariances;

  if (metric == Metric::Shape && centres.shape == Shape::None)
    throw ShapeError(
        "SquaredDistances: the basis asks for Mahalanobis distances (metric = shape) but the "
        "centres have no shape; use a centre learner that fits shapes (radial plugins list says "
        "which) or let the basis set widths in prepare()");

  switch (s.shape) {
    case Shape::None:
    case Shape::Spherical:
      s.prepare_euclidean(centres);
      break;
    case Shape::Diagonal:
      s.prepare_diagonal(centres);
      break;
    case Shape::Full:
      s.prepare_full(centres, form);
      break;
  }
}

// ||c_j||^2 for the GEMM identity; Spherical also 1 / sigma_j^2 and log |S_j| = d log sigma_j^2.
void SquaredDistances::Impl::prepare_euclidean(const Centres& centres) {
  means = centres.means;
  mean_norms = xt::zeros<double>({m});
  for (std::size_t j = 0; j < m; ++j) {
    double sum = 0;
    for (std::size_t k = 0; k < d; ++k) sum += means(j, k) * means(j, k);
    mean_norms(j) = sum;
  }
  if (shape != Shape::Spherical) return;
  if (centres.variances.size() != m)
    throw ShapeError("SquaredDistances: spherical centres need " + std::to_string(m) +
                     " variances, found " + std::to_string(centres.variances.size()));
  inverse_variance = xt::zeros<double>({m});
  for (std::size_t j = 0; j < m; ++j) {
    const double v = centres.variances(j);
    if (!(v > 0) || !std::isfinite(v))
      throw ShapeError("SquaredDistances: " + centre_name(j, m) + " has spherical variance " +
                       number(v) + "; variances must be finite and > 0 (set a variance "
                       "floor in the centre learner or a basis width > 0)");
    inverse_variance(j) = 1.0 / v;
    log_det(j) = double(d) * std::log(v);
  }
}

// 1 / s_jd, c_jd / s_jd and sum_d c_jd^2 / s_jd, then the feature form: [x^2, x, 1] against
// [1/s; -2 c/s; sum c^2/s].
void SquaredDistances::Impl::prepare_diagonal(const Centres& centres) {
  if (centres.diagonal.dimension() != 2 || centres.diagonal.shape(0) != m ||
      centres.diagonal.shape(1) != d)
    throw ShapeError("SquaredDistances: diagonal centres need an " + std::to_string(m) + " x " +
                     std::to_string(d) + " matrix of variances");
  inverse_diagonal = xt::zeros<double>({m, d});
  scaled_means = xt::zeros<double>({m, d});
  diagonal_constant = xt::zeros<double>({m});
  for (std::size_t j = 0; j < m; ++j) {
    double constant = 0, log_sum = 0;
    for (std::size_t k = 0; k < d; ++k) {
      const double v = centres.diagonal(j, k);
      if (!(v > 0) || !std::isfinite(v))
        throw ShapeError("SquaredDistances: " + centre_name(j, m) + " has variance " + number(v) +
                         " in dimension " + std::to_string(k) +
                         "; variances must be finite and > 0 (set a variance floor in the "
                         "centre learner)");
      const double c = centres.means(j, k);
      inverse_diagonal(j, k) = 1.0 / v;
      scaled_means(j, k) = c / v;
      constant += c * c / v;
      log_sum += std::log(v);
    }
    diagonal_constant(j) = constant;
    log_det(j) = log_sum;
  }
  features = 2 * d + 1;
  coefficients = Matrix::from_shape({features, m});
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t k = 0; k < d; ++k) {
      coefficients(k, j) = inverse_diagonal(j, k);
      coefficients(d + k, j) = -2.0 * scaled_means(j, k);
    }
    coefficients(2 * d, j) = diagonal_constant(j);
  }
}

// Per centre: the Cholesky factor L_j, its inverse (the whitening), log |S_j|, and while every
// centre allows it, the quadratic-form column about g = the mean of the centre means (which
// limits cancellation). One centre that fails the Automatic bound sends all to the whitened form.
void SquaredDistances::Impl::prepare_full(const Centres& centres, FullForm form) {
  if (centres.covariances.dimension() != 3 || centres.covariances.shape(0) != m ||
      centres.covariances.shape(1) != d || centres.covariances.shape(2) != d)
    throw ShapeError("SquaredDistances: full centres need " + std::to_string(m) + " covariance "
                     "matrices of " + std::to_string(d) + " x " + std::to_string(d));
  chunk = std::max<std::size_t>(1, std::min(m, full_chunk_columns / std::max<std::size_t>(d, 1)));
  const std::size_t chunks = (m + chunk - 1) / chunk;
  whitening.assign(chunks, Matrix(xt::zeros<double>({d, chunk * d})));
  whitened_means = xt::zeros<double>({m, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k) reference(k) += centres.means(j, k);
  if (m > 0) reference /= double(m);
  const std::size_t pairs = d * (d + 1) / 2;
  bool quadratic =
      form == FullForm::Quadratic || (form == FullForm::Automatic && d <= quadratic_max_dim);
  Matrix quadratic_coefficients;
  if (quadratic) quadratic_coefficients = Matrix::from_shape({pairs + d + 1, m});
  Matrix l({d, d}), l_inv({d, d});
  for (std::size_t j = 0; j < m; ++j) {
    cholesky_factor(centres, j, l);
    invert_lower(l, l_inv);
    double log_sum = 0;
    for (std::size_t a = 0; a < d; ++a) log_sum += 2.0 * std::log(l(a, a));
    log_det(j) = log_sum;
    store_whitening(centres, j, l_inv);
    if (quadratic) quadratic = quadratic_column(centres, j, l_inv, form, quadratic_coefficients);
  }
  if (quadratic) {
    features = pairs + d + 1;
    coefficients = std::move(quadratic_coefficients);
  }
}

// Centre j's rows of L_j^{-1} into its chunk's whitening GEMM columns, and c'_j = L_j^{-1} c_j.
void SquaredDistances::Impl::store_whitening(const Centres& centres, std::size_t j,
                                             const Matrix& l_inv) {
  Matrix& w = whitening[j / chunk];
  const std::size_t offset = (j % chunk) * d;
  for (std::size_t k = 0; k < d; ++k) {
    double cw = 0;
    for (std::size_t i = 0; i <= k; ++i) {
      w(i, offset + k) = l_inv(k, i);
      cw += l_inv(k, i) * centres.means(j, i);
    }
    whitened_means(j, k) = cw;
  }
}

// Column j of the quadratic form's coefficients (distances.hpp): P = L^{-T} L^{-1}; with
// z = L^{-1} c', P c' = L^{-T} z and c'^T P c' = |z|^2. False, with the column unwritten, when
// Automatic finds (|c'|^2 + tr S) tr P above quadratic_max_term (the terms would cancel).
bool SquaredDistances::Impl::quadratic_column(const Centres& centres, std::size_t j,
                                              const Matrix& l_inv, FullForm form,
                                              Matrix& out) const {
  const std::size_t pairs = d * (d + 1) / 2;
  std::vector<double> shifted(d), z(d), precision(d * d);
  double trace_s = 0, trace_p = 0, shift2 = 0, constant = 0;
  for (std::size_t a = 0; a < d; ++a) {
    shifted[a] = centres.means(j, a) - reference(a);
    shift2 += shifted[a] * shifted[a];
    trace_s += centres.covariances(j, a, a);
  }
  for (std::size_t a = 0; a < d; ++a) {
    double v = 0;
    for (std::size_t i = 0; i <= a; ++i) v += l_inv(a, i) * shifted[i];
    z[a] = v;
    constant += v * v;
  }
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = a; b < d; ++b) {
      double v = 0;
      for (std::size_t k = b; k < d; ++k) v += l_inv(k, a) * l_inv(k, b);
      precision[a * d + b] = precision[b * d + a] = v;
    }
  for (std::size_t a = 0; a < d; ++a) trace_p += precision[a * d + a];
  if (form == FullForm::Automatic && !((shift2 + trace_s) * trace_p <= quadratic_max_term))
    return false;
  std::size_t f = 0;
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = a; b < d; ++b)
      out(f++, j) = a == b ? precision[a * d + a] : 2.0 * precision[a * d + b];
  for (std::size_t a = 0; a < d; ++a) {
    double v = 0;
    for (std::size_t k = a; k < d; ++k) v += l_inv(k, a) * z[k];
    out(pairs + a, j) = -2.0 * v;
  }
  out(pairs + d, j) = constant;
  return true;
}

SquaredDistances::~SquaredDistances() = default;
SquaredDistances::SquaredDistances(SquaredDistances&&) noexcept = default;
SquaredDistances& SquaredDistances::operator=(SquaredDistances&&) noexcept = default;

const Vector& SquaredDistances::log_determinants() const { return impl_->log_det; }

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

std::size_t SquaredDistances::count() const { return impl_->m; }
std::size_t SquaredDistances::dim() const { return impl_->d; }
std::size_t SquaredDistances::feature_count() const { return impl_->features; }
const Matrix& SquaredDistances::feature_coefficients() const { return impl_->coefficients; }
const Vector& SquaredDistances::feature_reference() const { return impl_->reference; }

void SquaredDistances::features(const double* rows, std::size_t count, Matrix& f) const {
  if (impl_->features == 0)
    throw ShapeError("SquaredDistances: these distances have no feature form");
  impl_->make_features(rows, count, f);
}

void SquaredDistances::compute(const Matrix& x_block, Matrix& r2) const {
  const Impl& s = *impl_;
  if (x_block.dimension() != 2 || x_block.shape(1) != s.d)
    throw ShapeError("SquaredDistances: input rows have " +
                     std::to_string(x_block.dimension() == 2 ? x_block.shape(1) : 0) +
                     " features but the centres have " + std::to_string(s.d) +
                     "; give inputs with the features the centres were trained on");
  const std::size_t n = x_block.shape(0);
  r2.resize({n, s.m});
  if (n == 0 || s.m == 0) return;
  if (s.d == 0) {
    r2.fill(0.0);
    return;
  }
  switch (s.shape) {
    case Shape::None:
    case Shape::Spherical: s.compute_euclidean(x_block, r2); break;
    case Shape::Diagonal: s.compute_features(x_block, r2); break;
    case Shape::Full:
      if (s.features) s.compute_features(x_block, r2);
      else s.compute_full(x_block, r2);
      break;
  }
}

void SquaredDistances::Impl::make_features(const double* x, std::size_t rows, Matrix& f) const {
  if (f.shape(0) != rows || f.shape(1) != features) f.resize({rows, features});
  make_features(x, rows, f.data());
}

void SquaredDistances::Impl::make_features(const double* x, std::size_t rows, double* out) const {
  if (shape == Shape::Diagonal) {
    for (std::size_t n = 0; n < rows; ++n, x += d, out += features) {
      for (std::size_t k = 0; k < d; ++k) out[k] = x[k] * x[k];
      for (std::size_t k = 0; k < d; ++k) out[d + k] = x[k];
      out[2 * d] = 1.0;
    }
    return;
  }
  const double* g = reference.data();
#ifdef RADIAL_DISTANCES_AVX512
  if (use_avx512_kernels() && d <= quadratic_max_dim) {
    quadratic_features_avx512(x, rows, d, g, out, features);
    return;
  }
#endif
  double y[quadratic_max_dim];
  std::vector<double> big(d > quadratic_max_dim ? d : 0);
  double* yy = d > quadratic_max_dim ? big.data() : y;
  const std::size_t pairs = d * (d + 1) / 2;
  for (std::size_t n = 0; n < rows; ++n, x += d, out += features) {
    for (std::size_t k = 0; k < d; ++k) yy[k] = x[k] - g[k];
    double* o = out;
    for (std::size_t a = 0; a < d; ++a) {
      const double ya = yy[a];
      for (std::size_t b = a; b < d; ++b) o[b - a] = ya * yy[b];
      o += d - a;
    }
    for (std::size_t k = 0; k < d; ++k) out[pairs + k] = yy[k];
    out[pairs + d] = 1.0;
  }
}

void SquaredDistances::Impl::compute_features(const Matrix& x, Matrix& r2) const {
  const std::size_t n = x.shape(0);
  std::vector<double>& f = scratch_features();
  if (f.size() < n * features) f.resize(n * features);
  make_features(x.data(), n, f.data());
  small_gemm(n, m, features, f.data(), features, 1, coefficients.data(), m, r2.data(), m, false);
  double* out = r2.data();
  // Clamp: the identity can round slightly below 0 for x close to c_j.
  for (std::size_t i = 0, size = n * m; i < size; ++i) out[i] = std::max(0.0, out[i]);
}

void SquaredDistances::Impl::compute_euclidean(const Matrix& x, Matrix& r2) const {
  const std::size_t n = x.shape(0);
  xt::blas::gemm(x, means, r2, false, true, -2.0, 0.0);
  const double* xd = x.data();
  double* out = r2.data();
  const double* cn = mean_norms.data();
  const double* inv = shape == Shape::Spherical ? inverse_variance.data() : nullptr;
  for (std::size_t row = 0; row < n; ++row) {
    const double* xr = xd + row * d;
    double xn = 0;
    for (std::size_t k = 0; k < d; ++k) xn += xr[k] * xr[k];
    double* o = out + row * m;
    // Clamp: the identity can round slightly below 0 for x close to c_j.
    if (inv) {
      for (std::size_t j = 0; j < m; ++j) o[j] = std::max(0.0, o[j] + xn + cn[j]) * inv[j];
    } else {
      for (std::size_t j = 0; j < m; ++j) o[j] = std::max(0.0, o[j] + xn + cn[j]);
    }
  }
}

void SquaredDistances::Impl::compute_full(const Matrix& x, Matrix& r2) const {
  const std::size_t n = x.shape(0);
  const std::size_t width = chunk * d;
  Matrix& z = scratch_whitened();
  z.resize({n, width});
  double* out = r2.data();
  for (std::size_t c = 0; c < whitening.size(); ++c) {
    xt::blas::gemm(x, whitening[c], z, false, false, 1.0, 0.0);
    const std::size_t first = c * chunk;
    const std::size_t last = std::min(m, first + chunk);
    // ||L_j^{-1} x - L_j^{-1} c_j||^2 summed directly: as cheap as the norm the identity would
    // need, and free of its cancellation.
    for (std::size_t row = 0; row < n; ++row) {
      const double* zr = z.data() + row * width;
      double* o = out + row * m;
      for (std::size_t j = first; j < last; ++j) {
        const double* zj = zr + (j - first) * d;
        const double* cj = whitened_means.data() + j * d;
        double sum = 0;
        for (std::size_t k = 0; k < d; ++k) {
          const double diff = zj[k] - cj[k];
          sum += diff * diff;
        }
        o[j] = sum;
      }
    }
  }
}

Matrix squared_euclidean(const Matrix& a, const Matrix& b) {
  if (a.dimension() != 2 || b.dimension() != 2 || a.shape(1) != b.shape(1))
    throw ShapeError("squared_euclidean: the two matrices must have the same number of columns (" +
                     std::to_string(a.shape(1)) + " and " + std::to_string(b.shape(1)) + ")");
  Centres centres;
  centres.means = b;
  SquaredDistances distances(centres, Metric::Euclidean);
  Matrix r2;
  distances.compute(a, r2);
  return r2;
}

}  // namespace radial
