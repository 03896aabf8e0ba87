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

#include "distances_impl.hpp"
#include "observed_gaussian.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/cpu.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/core/text.hpp"

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
