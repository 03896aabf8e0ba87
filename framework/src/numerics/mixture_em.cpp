// EM for Gaussian mixtures: E-step by log-sum-exp (dense GEMM path or K-d tree candidates),
// M-step for spherical / diagonal / full covariances with a floor, the EM driver with the
// empty-component policy, and per-class mixtures (paper 002, section III-A, fig. 1).
#include "radial/numerics/mixture_em.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

#include <xtensor-blas/xblas.hpp>

#include "radial/errors.hpp"
#include "radial/numerics/gaussian.hpp"
#include "radial/numerics/kmeans.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/numerics/vector_math.hpp"
#include "radial/parallel.hpp"

namespace radial {

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

void copy_rows(const Matrix& x, std::size_t first, std::size_t rows, Matrix& block) {
  const std::size_t d = x.shape(1);
  if (block.shape(0) != rows || block.shape(1) != d) block.resize({rows, d});
  std::memcpy(block.data(), x.data() + first * d, rows * d * sizeof(double));
}

// a (rows x M) -> responsibilities in place; lse[n] = log sum_j exp a(n, j). A row of all
// -inf gives responsibilities 0 and lse -inf.
void dense_responsibilities(Matrix& a, std::vector<double>& lse) {
  lse.resize(a.shape(0));
  exp_normalise_rows(a.data(), a.shape(0), a.shape(1), nullptr, lse.data());
}

// The feature form of the dense E-step (Diagonal, Full quadratic; SquaredDistances): with F
// the block's features (rows x P), log w_j + log N(x_n|j) = min(F W', cap_j) in one GEMM, where
// W' = -0.5 W with c_j + log w_j added to the coefficient of the constant feature, and
// cap_j = c_j + log w_j (r^2 >= 0 clamped); every count is then one GEMM R^T F (paper 002,
// section III-A: C(1), C(x), C(x^2); for Full the scatter about the reference g).
struct FeatureForm {
  std::size_t p = 0;
  Matrix coefficients;       // P x M
  std::vector<double> cap;   // M; -inf for w_j = 0
};

FeatureForm make_feature_form(const GaussianLogDensity& density, const Vector& log_weights) {
  const SquaredDistances& dist = density.distances();
  const Vector& c = density.constants();
  FeatureForm form;
  form.p = dist.feature_count();
  const std::size_t m = dist.count();
  form.coefficients = -0.5 * dist.feature_coefficients();  // exact: a power of 2
  form.cap.resize(m);
  for (std::size_t j = 0; j < m; ++j) {
    const double lw = log_weights.size() ? log_weights(j) : 0.0;
    form.cap[j] = c(j) + lw;
    // -inf weights stay out of the GEMM; cap_j = -inf masks them.
    form.coefficients(form.p - 1, j) += lw == minus_inf ? c(j) : c(j) + lw;
  }
  return form;
}

// a (rows x M) = responsibilities of the rows whose features are f, lse their log-sum-exp;
// with owner, row n (group groups[first + n]) is responsible only to its group's components.
void feature_responsibilities(const Matrix& f, const FeatureForm& form, const Labels* owner,
                              const Labels* groups, std::size_t first, Matrix& a,
                              std::vector<double>& lse) {
  const std::size_t rows = f.shape(0), m = form.cap.size();
  if (a.shape(0) != rows || a.shape(1) != m) a.resize({rows, m});
  const std::size_t p = form.p;
  small_gemm(rows, m, p, f.data(), p, 1, form.coefficients.data(), m, a.data(), m, false);
  if (owner)
    for (std::size_t n = 0; n < rows; ++n) {
      const std::int64_t g = (*groups)(first + n);
      double* r = &a(n, 0);
      for (std::size_t j = 0; j < m; ++j)
        if ((*owner)(j) != g) r[j] = minus_inf;
    }
  lse.resize(rows);
  exp_normalise_rows(a.data(), rows, m, form.cap.data(), lse.data());
}

// stats (P x M) += F^T R: every count of the block's rows at once.
void accumulate_features(const Matrix& f, const Matrix& r, Matrix& stats) {
  const std::size_t rows = f.shape(0), p = f.shape(1), m = r.shape(1);
  small_gemm(p, m, rows, f.data(), 1, p, r.data(), m, stats.data(), m, true);
}

// counts (reset, shape set) from the feature statistics G^T = sum over blocks of F^T R (P x M).
void unpack_feature_counts(const Matrix& gt, const SquaredDistances& dist, MixtureCounts& counts) {
  const std::size_t m = gt.shape(1), d = dist.dim(), p = dist.feature_count();
  auto g = [&](std::size_t j, std::size_t f) { return gt(f, j); };
  if (counts.shape == Shape::Full) {
    // F = [(y_a y_b)_{a<=b}, y, 1] with y = x - ref: scatter about ref, C(x) = C(y) + C(1) ref.
    const std::size_t pairs = d * (d + 1) / 2;
    const Vector& ref = dist.feature_reference();
    for (std::size_t j = 0; j < m; ++j) {
      const double c1 = g(j, p - 1);
      counts.c1(j) = c1;
      std::size_t f = 0;
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = a; b < d; ++b, ++f)
          counts.scatter(j, a, b) = counts.scatter(j, b, a) = g(j, f);
      for (std::size_t k = 0; k < d; ++k) {
        counts.cx(j, k) = g(j, pairs + k) + c1 * ref(k);
        counts.reference(j, k) = ref(k);
      }
    }
  } else {
    // F = [x^2, x, 1].
    for (std::size_t j = 0; j < m; ++j) {
      counts.c1(j) = g(j, p - 1);
      for (std::size_t k = 0; k < d; ++k) {
        counts.cxx(j, k) = g(j, k);
        counts.cx(j, k) = g(j, d + k);
      }
    }
  }
}

// counts += statistics of responsibilities r (rows x M) over the block xb (rows x d).
void accumulate_dense(const Matrix& xb, const Matrix& r, MixtureCounts& counts, Matrix& squares,
                      Matrix& scaled) {
  const std::size_t rows = xb.shape(0), m = r.shape(1), d = xb.shape(1);
  for (std::size_t n = 0; n < rows; ++n) {
    const double* rr = &r(n, 0);
    for (std::size_t j = 0; j < m; ++j) counts.c1(j) += rr[j];
  }
  xt::blas::gemm(r, xb, counts.cx, true, false, 1.0, 1.0);  // C(x) += R^T X
  if (counts.shape == Shape::Full) {
    // scatter_j += Y^T Y with Y = sqrt(r_nj) (x_n - m_j)
    if (scaled.shape(0) != rows || scaled.shape(1) != d) scaled.resize({rows, d});
    Matrix cov = Matrix::from_shape({d, d});
    for (std::size_t j = 0; j < m; ++j) {
      const double* ref = &counts.reference(j, 0);
      for (std::size_t n = 0; n < rows; ++n) {
        const double s = std::sqrt(r(n, j));
        for (std::size_t k = 0; k < d; ++k) scaled(n, k) = s * (xb(n, k) - ref[k]);
      }
      xt::blas::gemm(scaled, scaled, cov, true, false, 1.0, 0.0);
      double* out = &counts.scatter(j, 0, 0);
      for (std::size_t i = 0; i < d * d; ++i) out[i] += cov.data()[i];
    }
  } else {
    if (squares.shape(0) != rows || squares.shape(1) != d) squares.resize({rows, d});
    for (std::size_t i = 0; i < rows * d; ++i) squares.data()[i] = xb.data()[i] * xb.data()[i];
    xt::blas::gemm(r, squares, counts.cxx, true, false, 1.0, 1.0);  // C(x^2) += R^T X^2
  }
}

// counts += r * statistics of one row x for component j.
inline void accumulate_one(const double* x, std::size_t j, double r, MixtureCounts& counts,
                           std::size_t d) {
  counts.c1(j) += r;
  double* cx = &counts.cx(j, 0);
  for (std::size_t k = 0; k < d; ++k) cx[k] += r * x[k];
  if (counts.shape == Shape::Full) {
    const double* ref = &counts.reference(j, 0);
    double* s = &counts.scatter(j, 0, 0);
    for (std::size_t a = 0; a < d; ++a) {
      const double da = r * (x[a] - ref[a]);
      for (std::size_t b = 0; b < d; ++b) s[a * d + b] += da * (x[b] - ref[b]);
    }
  } else {
    double* cxx = &counts.cxx(j, 0);
    for (std::size_t k = 0; k < d; ++k) cxx[k] += r * x[k] * x[k];
  }
}

// One row's candidates (component, log density) -> the allowed ones with a = log w + log N,
// then responsibilities in `value`; returns the log-sum-exp (-inf when nothing is allowed).
double sparse_row(const std::uint32_t* comp, const double* logn, std::size_t count,
                  const Vector& log_weights, const Labels* owner, std::int64_t group,
                  std::vector<std::uint32_t>& used, std::vector<double>& value) {
  used.clear();
  value.clear();
  double mx = minus_inf;
  for (std::size_t e = 0; e < count; ++e) {
    const std::uint32_t j = comp[e];
    if (owner && (*owner)(j) != group) continue;
    const double a = logn[e] + log_weights(j);
    if (a == minus_inf) continue;
    used.push_back(j);
    value.push_back(a);
    mx = std::max(mx, a);
  }
  if (used.empty()) return minus_inf;
  for (double& v : value) v -= mx;
  exp_in_place(value.data(), value.size());
  double s = 0;
  for (const double v : value) s += v;
  const double inv = 1.0 / s;
  for (double& v : value) v *= inv;
  return mx + std::log(s);
}

// Every allowed component of one row, evaluated directly (fallback for an unhelpful leaf).
void all_allowed(const TreeLogDensity& density, const double* x, const Labels* owner,
                 std::int64_t group, std::vector<std::uint32_t>& comp, std::vector<double>& logn) {
  comp.clear();
  logn.clear();
  for (std::size_t j = 0; j < density.count(); ++j) {
    if (owner && (*owner)(j) != group) continue;
    comp.push_back(std::uint32_t(j));
    logn.push_back(density.log_density(x, j));
  }
}

void check_inputs(const Matrix& x, const Centres& components, const Vector& log_weights,
                  const char* who) {
  if (components.shape == Shape::None)
    throw ShapeError(std::string(who) + ": the mixture components have no shape");
  if (x.dimension() != 2 || x.shape(1) != components.dim())
    throw ShapeError(std::string(who) + ": the data have " + std::to_string(x.shape(1)) +
                     " columns but the components " + std::to_string(components.dim()));
  if (log_weights.size() != components.count())
    throw ShapeError(std::string(who) + ": " + std::to_string(log_weights.size()) +
                     " weights for " + std::to_string(components.count()) + " components");
}

Vector log_of(const Vector& w) {
  Vector l = w;
  for (std::size_t j = 0; j < l.size(); ++j) l(j) = w(j) > 0 ? std::log(w(j)) : minus_inf;
  return l;
}

// Smallest squared Cholesky pivot of a symmetric d x d matrix, i.e. the smallest conditional
// variance Var(x_a | x_0..x_{a-1}); <= 0 when the matrix is not positive definite.
double smallest_pivot(const double* s, std::size_t d) {
  std::vector<double> l(d * d, 0.0);
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double v = s[a * d + b];
      for (std::size_t k = 0; k < b; ++k) v -= l[a * d + k] * l[b * d + k];
      if (a == b) {
        if (!(v > 0)) return v;
        smallest = std::min(smallest, v);
        l[a * d + a] = std::sqrt(v);
      } else {
        l[a * d + b] = v / l[b * d + b];
      }
    }
  return smallest;
}

// The variance of component j in dimension k (shape-aware), for averaging.
double variance_of(const Centres& c, std::size_t j, std::size_t k) {
  switch (c.shape) {
    case Shape::Spherical: return c.variances(j);
    case Shape::Diagonal: return c.diagonal(j, k);
    case Shape::Full: return c.covariances(j, k, k);
    case Shape::None: break;
  }
  return 1.0;
}

// Sets component j's shape to the diagonal variances v (d values).
void set_variances(Centres& c, std::size_t j, const std::vector<double>& v) {
  const std::size_t d = c.dim();
  switch (c.shape) {
    case Shape::Spherical:
      c.variances(j) = std::accumulate(v.begin(), v.end(), 0.0) / double(d);
      break;
    case Shape::Diagonal:
      for (std::size_t k = 0; k < d; ++k) c.diagonal(j, k) = v[k];
      break;
    case Shape::Full:
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) c.covariances(j, a, b) = a == b ? v[a] : 0.0;
      break;
    case Shape::None: break;
  }
}

void allocate_shape(Centres& c, std::size_t m, std::size_t d, Shape shape) {
  c.shape = shape;
  c.means = Matrix::from_shape({m, d});
  c.variances = Vector();
  c.diagonal = Matrix();
  c.covariances = Tensor3();
  if (shape == Shape::Spherical) c.variances = Vector::from_shape({m});
  if (shape == Shape::Diagonal) c.diagonal = Matrix::from_shape({m, d});
  if (shape == Shape::Full) c.covariances = Tensor3::from_shape({m, d, d});
}

}  // namespace

void MixtureCounts::reset(std::size_t m, std::size_t d, Shape s) {
  shape = s;
  c1 = xt::zeros<double>({m});
  cx = xt::zeros<double>({m, d});
  if (s == Shape::Full) {
    scatter = xt::zeros<double>({m, d, d});
    cxx = Matrix();
  } else {
    cxx = xt::zeros<double>({m, d});
    scatter = Tensor3();
  }
}

EStepSummary e_step(const Matrix& x, const Centres& components, const Vector& log_weights,
                    const Labels* groups, const EStepOptions& options, MixtureCounts& counts) {
  check_inputs(x, components, log_weights, "E-step");
  const std::size_t n_rows = x.shape(0), m = components.count(), d = components.dim();
  const Labels* owner = nullptr;
  if (groups) {
    if (groups->size() != n_rows)
      throw ShapeError("E-step: " + std::to_string(groups->size()) + " group labels for " +
                       std::to_string(n_rows) + " rows");
    if (components.owner.size() != m)
      throw ShapeError("E-step: group labels were given but the components have no owners");
    owner = &components.owner;
  }
  counts.reset(m, d, components.shape);
  if (components.shape == Shape::Full) counts.reference = components.means;

  EStepSummary summary;
  summary.row_log_likelihood = Vector::from_shape({n_rows});
  const std::size_t block = std::max<std::size_t>(1, options.block_rows);
  Matrix xb, a, squares, scaled;
  std::vector<double> lse;
  double evaluated = 0;

  auto add = [](auto& to, const auto& from) {
    double* t = to.data();
    const double* f = from.data();
    for (std::size_t i = 0, e = from.size(); i < e; ++i) t[i] += f[i];
  };
  const bool statistics = options.statistics;

  if (!options.tree) {
    // Brute force: blocked GEMM densities, dense responsibilities, GEMM counts. Each block's
    // counts go to its worker's partial and are summed in block order (any thread count gives
    // the same bits); no N x M responsibility matrix is ever held.
    GaussianLogDensity density(components);
    const SquaredDistances& dist = density.distances();
    if (dist.feature_count()) {
      // Feature form: one GEMM for the log densities, one for all counts (FeatureForm).
      const FeatureForm form = make_feature_form(density, log_weights);
      const std::size_t p = form.p;
      struct Partial {
        Matrix f, a, stats;
        std::vector<double> lse;
        double log_likelihood = 0;
      };
      Matrix stats = xt::zeros<double>({p, m});
      ordered_reduce<Partial>(
          n_rows, block, options.threads,
          [&] {
            Partial q;
            q.stats = Matrix::from_shape({p, m});
            return q;
          },
          [&](const RowBlock& rb, Partial& q) {
            const std::size_t first = rb.first, rows = rb.count;
            dist.features(x.data() + first * d, rows, q.f);
            feature_responsibilities(q.f, form, owner, groups, first, q.a, q.lse);
            if (statistics) {
              std::fill(q.stats.begin(), q.stats.end(), 0.0);
              accumulate_features(q.f, q.a, q.stats);
            }
            q.log_likelihood = 0;
            for (std::size_t n = 0; n < rows; ++n) {
              summary.row_log_likelihood(first + n) = q.lse[n];
              q.log_likelihood += q.lse[n];
            }
          },
          [&](const RowBlock&, Partial& q) {
            if (statistics) add(stats, q.stats);
            summary.log_likelihood += q.log_likelihood;
          });
      if (statistics) unpack_feature_counts(stats, dist, counts);
      summary.mean_candidates = n_rows ? double(m) : 0.0;
      return summary;
    }
    struct Partial {
      Matrix xb, a, squares, scaled;
      std::vector<double> lse;
      MixtureCounts counts;
      double log_likelihood = 0;
    };
    ordered_reduce<Partial>(
        n_rows, block, options.threads,
        [&] {
          Partial p;
          p.counts.reset(m, d, components.shape);
          if (components.shape == Shape::Full) p.counts.reference = components.means;
          return p;
        },
        [&](const RowBlock& rb, Partial& p) {
          const std::size_t first = rb.first, rows = rb.count;
          std::fill(p.counts.c1.begin(), p.counts.c1.end(), 0.0);
          std::fill(p.counts.cx.begin(), p.counts.cx.end(), 0.0);
          std::fill(p.counts.cxx.begin(), p.counts.cxx.end(), 0.0);
          std::fill(p.counts.scatter.begin(), p.counts.scatter.end(), 0.0);
          copy_rows(x, first, rows, p.xb);
          density.compute(p.xb, p.a);
          Matrix& a = p.a;
          for (std::size_t n = 0; n < rows; ++n) {
            double* r = &a(n, 0);
            for (std::size_t j = 0; j < m; ++j)
              r[j] = (owner && (*owner)(j) != (*groups)(first + n)) ? minus_inf
                                                                      : r[j] + log_weights(j);
          }
          dense_responsibilities(a, p.lse);
          if (statistics) accumulate_dense(p.xb, a, p.counts, p.squares, p.scaled);
          p.log_likelihood = 0;
          for (std::size_t n = 0; n < rows; ++n) {
            summary.row_log_likelihood(first + n) = p.lse[n];
            p.log_likelihood += p.lse[n];
          }
        },
        [&](const RowBlock&, Partial& p) {
          add(counts.c1, p.counts.c1);
          add(counts.cx, p.counts.cx);
          add(counts.cxx, p.counts.cxx);
          add(counts.scatter, p.counts.scatter);
          summary.log_likelihood += p.log_likelihood;
        });
    evaluated = double(m) * double(n_rows);
  } else {
    TreeLogDensity density(components, options.tree);
    SparseLogDensity sparse;
    std::vector<std::uint32_t> used, fb_comp;
    std::vector<double> resp, fb_logn;
    for (std::size_t first = 0; first < n_rows; first += block) {
      const std::size_t rows = std::min(block, n_rows - first);
      copy_rows(x, first, rows, xb);
      density.compute_sparse(xb, sparse);
      evaluated += double(sparse.value.size());
      for (std::size_t n = 0; n < rows; ++n) {
        const std::int64_t group = groups ? (*groups)(first + n) : 0;
        const std::size_t b = sparse.offset[n], e = sparse.offset[n + 1];
        double l = sparse_row(sparse.component.data() + b, sparse.value.data() + b, e - b,
                              log_weights, owner, group, used, resp);
        if (used.empty()) {
          ++summary.fallback_rows;
          all_allowed(density, &xb(n, 0), owner, group, fb_comp, fb_logn);
          evaluated += double(fb_comp.size());
          l = sparse_row(fb_comp.data(), fb_logn.data(), fb_comp.size(), log_weights, owner, group,
                         used, resp);
        }
        if (statistics)
          for (std::size_t i = 0; i < used.size(); ++i)
            accumulate_one(&xb(n, 0), used[i], resp[i], counts, d);
        summary.row_log_likelihood(first + n) = l;
        summary.log_likelihood += l;
      }
    }
  }
  summary.mean_candidates = n_rows ? evaluated / double(n_rows) : 0.0;
  return summary;
}

DiscriminativeSummary e_step_discriminative(const Matrix& x, const Labels& classes,
                                            const Centres& components,
                                            const Vector& log_weights_numerator,
                                            const Vector& log_weights_denominator,
                                            const EStepOptions& options, MixtureCounts& numerator,
                                            MixtureCounts& denominator) {
  check_inputs(x, components, log_weights_numerator, "discriminative E-step");
  check_inputs(x, components, log_weights_denominator, "discriminative E-step");
  const std::size_t n_rows = x.shape(0), m = components.count(), d = components.dim();
  if (classes.size() != n_rows)
    throw ShapeError("discriminative E-step: " + std::to_string(classes.size()) +
                     " class labels for " + std::to_string(n_rows) + " rows");
  if (components.owner.size() != m)
    throw ShapeError("discriminative E-step: the components have no owner classes");
  const Labels* owner = &components.owner;
  numerator.reset(m, d, components.shape);
  denominator.reset(m, d, components.shape);
  if (components.shape == Shape::Full) {
    numerator.reference = components.means;
    denominator.reference = components.means;
  }

  DiscriminativeSummary summary;
  const std::size_t block = std::max<std::size_t>(1, options.block_rows);
  Matrix xb, logn, a, squares, scaled;
  std::vector<double> lse;
  double evaluated = 0;

  if (!options.tree) {
    GaussianLogDensity density(components);
    const SquaredDistances& dist = density.distances();
    if (dist.feature_count()) {
      // Feature form (FeatureForm): one GEMM for the densities, one per count set.
      const FeatureForm form = make_feature_form(density, Vector());
      const std::size_t p = form.p;
      Matrix f, stats_num = xt::zeros<double>({p, m}), stats_den = xt::zeros<double>({p, m});
      for (std::size_t first = 0; first < n_rows; first += block) {
        const std::size_t rows = std::min(block, n_rows - first);
        dist.features(x.data() + first * d, rows, f);
        logn.resize({rows, m});
        small_gemm(rows, m, p, f.data(), p, 1, form.coefficients.data(), m, logn.data(), m,
                   false);
        a.resize({rows, m});
        for (std::size_t n = 0; n < rows; ++n) {
          double* l = &logn(n, 0);
          double* r = &a(n, 0);
          const std::int64_t y = classes(first + n);
          for (std::size_t j = 0; j < m; ++j) {
            l[j] = std::min(l[j], form.cap[j]);  // log N(x|j), r^2 >= 0
            r[j] = (*owner)(j) != y ? minus_inf : l[j] + log_weights_numerator(j);
            l[j] += log_weights_denominator(j);
          }
        }
        // Numerator: the row's own class, weights w_jg.
        dense_responsibilities(a, lse);
        accumulate_features(f, a, stats_num);
        for (std::size_t n = 0; n < rows; ++n) summary.log_numerator += lse[n];
        // Denominator: the evidence mixture, weights P(y) w_jg.
        dense_responsibilities(logn, lse);
        accumulate_features(f, logn, stats_den);
        for (std::size_t n = 0; n < rows; ++n) summary.log_denominator += lse[n];
      }
      unpack_feature_counts(stats_num, dist, numerator);
      unpack_feature_counts(stats_den, dist, denominator);
      summary.mean_candidates = n_rows ? double(m) : 0.0;
      return summary;
    }
    for (std::size_t first = 0; first < n_rows; first += block) {
      const std::size_t rows = std::min(block, n_rows - first);
      copy_rows(x, first, rows, xb);
      density.compute(xb, logn);
      // Numerator: the row's own class, weights w_jg.
      a.resize({rows, m});
      for (std::size_t n = 0; n < rows; ++n)
        for (std::size_t j = 0; j < m; ++j)
          a(n, j) = (*owner)(j) != classes(first + n) ? minus_inf
                                                     : logn(n, j) + log_weights_numerator(j);
      dense_responsibilities(a, lse);
      accumulate_dense(xb, a, numerator, squares, scaled);
      for (std::size_t n = 0; n < rows; ++n) summary.log_numerator += lse[n];
      // Denominator: the evidence mixture, weights P(y) w_jg.
      for (std::size_t n = 0; n < rows; ++n)
        for (std::size_t j = 0; j < m; ++j) logn(n, j) += log_weights_denominator(j);
      dense_responsibilities(logn, lse);
      accumulate_dense(xb, logn, denominator, squares, scaled);
      for (std::size_t n = 0; n < rows; ++n) summary.log_denominator += lse[n];
    }
    evaluated = double(m) * double(n_rows);
  } else {
    TreeLogDensity density(components, options.tree);
    SparseLogDensity sparse;
    std::vector<std::uint32_t> used, fb_comp;
    std::vector<double> resp, fb_logn;
    for (std::size_t first = 0; first < n_rows; first += block) {
      const std::size_t rows = std::min(block, n_rows - first);
      copy_rows(x, first, rows, xb);
      density.compute_sparse(xb, sparse);
      evaluated += double(sparse.value.size());
      for (std::size_t n = 0; n < rows; ++n) {
        const double* xr = &xb(n, 0);
        const std::int64_t y = classes(first + n);
        const std::size_t b = sparse.offset[n], e = sparse.offset[n + 1];
        const std::uint32_t* comp = sparse.component.data() + b;
        const double* val = sparse.value.data() + b;
        std::size_t count = e - b;
        // Numerator over the leaf's Gaussians of class y; when there are none, class y's
        // Gaussians are evaluated for this row (the fallback), and they join the denominator.
        double l_num = sparse_row(comp, val, count, log_weights_numerator, owner, y, used, resp);
        if (used.empty()) {
          ++summary.fallback_rows;
          fb_comp.assign(comp, comp + count);
          fb_logn.assign(val, val + count);
          for (std::size_t j = 0; j < m; ++j)
            if ((*owner)(j) == y) {
              fb_comp.push_back(std::uint32_t(j));
              fb_logn.push_back(density.log_density(xr, j));
              evaluated += 1;
            }
          comp = fb_comp.data();
          val = fb_logn.data();
          count = fb_comp.size();
          l_num = sparse_row(comp, val, count, log_weights_numerator, owner, y, used, resp);
        }
        for (std::size_t i = 0; i < used.size(); ++i)
          accumulate_one(xr, used[i], resp[i], numerator, d);
        const double l_den =
            sparse_row(comp, val, count, log_weights_denominator, nullptr, 0, used, resp);
        for (std::size_t i = 0; i < used.size(); ++i)
          accumulate_one(xr, used[i], resp[i], denominator, d);
        summary.log_numerator += l_num;
        summary.log_denominator += l_den;
      }
    }
  }
  summary.mean_candidates = n_rows ? evaluated / double(n_rows) : 0.0;
  return summary;
}

MStepSummary m_step(const MixtureCounts& counts, const MStepOptions& options, Centres& components,
                    Vector& weights) {
  const std::size_t m = components.count(), d = components.dim();
  if (counts.c1.size() != m || counts.shape != components.shape)
    throw ShapeError("M-step: the counts do not match the components (" +
                     std::to_string(counts.c1.size()) + " counts of shape " +
                     to_string(counts.shape) + ", " + std::to_string(m) + " components of shape " +
                     to_string(components.shape) + ")");
  MStepSummary summary;
  summary.smallest_variance = std::numeric_limits<double>::infinity();
  const double floor = options.covariance_floor;
  std::vector<double> v(d), mean(d);
  for (std::size_t j = 0; j < m; ++j) {
    const double c1 = counts.c1(j);
    if (!(c1 >= options.empty_count)) {
      summary.empty.push_back(j);
      continue;
    }
    for (std::size_t k = 0; k < d; ++k) mean[k] = counts.cx(j, k) / c1;  // mu = C(x) / C(1)
    if (components.shape == Shape::Full) {
      // S = scatter / C(1) - delta delta^T, delta = mu_new - reference.
      double* s = &components.covariances(j, 0, 0);
      for (std::size_t a = 0; a < d; ++a) {
        const double da = mean[a] - counts.reference(j, a);
        for (std::size_t b = 0; b <= a; ++b) {
          const double db = mean[b] - counts.reference(j, b);
          const double value = counts.scatter(j, a, b) / c1 - da * db;
          s[a * d + b] = value;
          s[b * d + a] = value;
        }
      }
      for (std::size_t a = 0; a < d; ++a) {
        summary.smallest_variance = std::min(summary.smallest_variance, s[a * d + a]);
        if (!(s[a * d + a] >= floor)) {
          s[a * d + a] = floor;
          ++summary.floored;
        }
      }
      // Every conditional variance (squared Cholesky pivot) must reach the floor too, else
      // the covariance is near-singular: add the smallest floor * 10^i * I that fixes it.
      double added = 0, step = floor;
      for (int attempt = 0; attempt < 30 && !(smallest_pivot(s, d) >= floor); ++attempt) {
        for (std::size_t a = 0; a < d; ++a) s[a * d + a] += step - added;
        added = step;
        step *= 10;
      }
      if (added > 0) {
        ++summary.jittered;
        summary.largest_jitter = std::max(summary.largest_jitter, added);
      }
    } else {
      for (std::size_t k = 0; k < d; ++k) v[k] = counts.cxx(j, k) / c1 - mean[k] * mean[k];
      if (components.shape == Shape::Spherical) {
        double s = 0;
        for (std::size_t k = 0; k < d; ++k) s += v[k];
        s /= double(d);
        summary.smallest_variance = std::min(summary.smallest_variance, s);
        if (!(s >= floor)) {
          s = floor;
          ++summary.floored;
        }
        components.variances(j) = s;
      } else {
        for (std::size_t k = 0; k < d; ++k) {
          summary.smallest_variance = std::min(summary.smallest_variance, v[k]);
          if (!(v[k] >= floor)) {
            v[k] = floor;
            ++summary.floored;
          }
          components.diagonal(j, k) = v[k];
        }
      }
    }
    for (std::size_t k = 0; k < d; ++k) components.means(j, k) = mean[k];
  }
  // Weights w_j = C(1)_j / sum over the component's group (all components without owners).
  if (weights.size() != m) weights = Vector::from_shape({m});
  const bool grouped = components.owner.size() == m;
  std::map<std::int64_t, double> totals;
  for (std::size_t j = 0; j < m; ++j) totals[grouped ? components.owner(j) : 0] += counts.c1(j);
  for (std::size_t j = 0; j < m; ++j) {
    const double t = totals[grouped ? components.owner(j) : 0];
    weights(j) = t > 0 ? counts.c1(j) / t : 0.0;
  }
  return summary;
}

void mixture_from_assignment(const Matrix& x, const Labels& assignment, const Matrix& means,
                             Shape shape, double covariance_floor, Centres& components,
                             Vector& weights) {
  const std::size_t n_rows = x.shape(0), d = x.shape(1), m = means.shape(0);
  if (assignment.size() != n_rows)
    throw ShapeError("mixture_from_assignment: " + std::to_string(assignment.size()) +
                     " labels for " + std::to_string(n_rows) + " rows");
  allocate_shape(components, m, d, shape);
  components.means = means;
  MixtureCounts counts;
  counts.reset(m, d, shape);
  if (shape == Shape::Full) counts.reference = means;
  for (std::size_t n = 0; n < n_rows; ++n) {
    const auto j = std::size_t(assignment(n));
    if (j >= m)
      throw ShapeError("mixture_from_assignment: row " + std::to_string(n) + " is assigned to " +
                       std::to_string(j) + " of " + std::to_string(m) + " clusters");
    accumulate_one(&x(n, 0), j, 1.0, counts, d);
  }
  // Data variance per dimension: the shape of clusters too small to estimate their own.
  std::vector<double> data_var(d, 0.0), data_mean(d, 0.0);
  for (std::size_t n = 0; n < n_rows; ++n)
    for (std::size_t k = 0; k < d; ++k) data_mean[k] += x(n, k) / double(n_rows);
  for (std::size_t n = 0; n < n_rows; ++n)
    for (std::size_t k = 0; k < d; ++k)
      data_var[k] += (x(n, k) - data_mean[k]) * (x(n, k) - data_mean[k]) / double(n_rows);
  for (double& v : data_var) v = std::max(v, covariance_floor);

  MStepOptions options;
  options.covariance_floor = covariance_floor;
  options.empty_count = 1.5;  // clusters of 0 or 1 rows have no variance to estimate
  Centres owned = components;
  owned.owner = Labels();
  m_step(counts, options, owned, weights);
  components = owned;
  components.means = means;
  for (std::size_t j = 0; j < m; ++j)
    if (counts.c1(j) < 1.5) set_variances(components, j, data_var);
  double total = 0;
  for (std::size_t j = 0; j < m; ++j) total += counts.c1(j);
  for (std::size_t j = 0; j < m; ++j) weights(j) = counts.c1(j) / total;
}

EmResult em_mixture(const Matrix& x, Centres initial, Vector initial_weights,
                    const EmOptions& options) {
  if (initial.shape != options.shape)
    throw ShapeError(std::string("em_mixture: initial components have shape ") +
                     to_string(initial.shape) + " but options.shape is " +
                     to_string(options.shape));
  initial.check();
  const std::size_t n_rows = x.shape(0), m = initial.count(), d = initial.dim();
  if (n_rows == 0) throw InputError("em_mixture: no rows to fit");
  EmResult result;
  result.components = std::move(initial);
  result.components.owner = Labels();
  result.weights = std::move(initial_weights);
  if (result.weights.size() != m)
    throw ShapeError("em_mixture: " + std::to_string(result.weights.size()) + " weights for " +
                     std::to_string(m) + " components");

  MixtureCounts counts;
  MStepOptions mopt;
  mopt.covariance_floor = options.covariance_floor;
  EStepOptions eopt;
  eopt.block_rows = options.block_rows;
  eopt.threads = options.threads;

  for (std::size_t i = 0;; ++i) {
    // The last E-step only measures the log-likelihood of the final parameters.
    eopt.statistics = i < options.iterations;
    std::unique_ptr<GaussianBoxTree> tree;
    if (options.use_tree) {
      tree = std::make_unique<GaussianBoxTree>(result.components, x, options.tree);
      eopt.tree = tree.get();
    }
    const EStepSummary s =
        e_step(x, result.components, log_of(result.weights), nullptr, eopt, counts);
    eopt.tree = nullptr;
    result.log_likelihood.push_back(s.log_likelihood);
    result.final_log_likelihood = s.log_likelihood;
    result.fallback_rows += s.fallback_rows;
    result.mean_candidates = s.mean_candidates;
    if (i > 0 && options.tolerance > 0) {
      const double previous = result.log_likelihood[i - 1];
      if (std::fabs(s.log_likelihood - previous) <= options.tolerance * std::fabs(previous)) {
        result.converged = true;
        break;
      }
    }
    if (i == options.iterations) break;

    const MStepSummary ms = m_step(counts, mopt, result.components, result.weights);
    ++result.iterations;
    if (ms.floored) {
      result.floored += ms.floored;
      result.notes.push_back("iteration " + std::to_string(i + 1) + ": " +
                             std::to_string(ms.floored) + " variance(s) raised to the floor " +
                             number(options.covariance_floor) + " (smallest was " +
                             number(ms.smallest_variance) + ")");
    }
    if (ms.jittered) {
      result.floored += ms.jittered;
      result.notes.push_back("iteration " + std::to_string(i + 1) + ": " +
                             std::to_string(ms.jittered) +
                             " near-singular covariance(s) (a conditional variance below the "
                             "floor) got up to " + number(ms.largest_jitter) + " I added");
    }
    if (!ms.empty.empty()) {
      // Reseed each empty component at the worst-explained rows (lowest log-likelihood).
      std::vector<std::size_t> order(n_rows);
      std::iota(order.begin(), order.end(), 0);
      const std::size_t k = std::min(ms.empty.size(), n_rows);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [&](std::size_t a, std::size_t b) {
                          return s.row_log_likelihood(a) < s.row_log_likelihood(b);
                        });
      std::vector<double> mean_var(d, 0.0);
      std::size_t live = 0;
      for (std::size_t j = 0; j < m; ++j) {
        if (std::find(ms.empty.begin(), ms.empty.end(), j) != ms.empty.end()) continue;
        ++live;
        for (std::size_t kk = 0; kk < d; ++kk) mean_var[kk] += variance_of(result.components, j, kk);
      }
      for (double& v : mean_var) v = live ? v / double(live) : 1.0;
      for (std::size_t e = 0; e < ms.empty.size(); ++e) {
        const std::size_t j = ms.empty[e];
        const std::size_t row = order[std::min(e, k - 1)];
        for (std::size_t kk = 0; kk < d; ++kk) result.components.means(j, kk) = x(row, kk);
        set_variances(result.components, j, mean_var);
        result.weights(j) = 1.0 / double(n_rows);
        ++result.empty_repairs;
        result.notes.push_back("iteration " + std::to_string(i + 1) + ": component " +
                               std::to_string(j) + " lost all responsibility (C(1) = " +
                               number(counts.c1(j)) + "); reseeded at row " + std::to_string(row));
      }
      const double total = xt::sum(result.weights)();
      for (std::size_t j = 0; j < m; ++j) result.weights(j) /= total;
    }
  }
  return result;
}

EmResult em_mixture_kmeans(const Matrix& x, std::size_t count, const EmOptions& options,
                           std::mt19937_64& rng, std::size_t* kmeans_repairs) {
  if (x.shape(0) < count)
    throw InputError("EM initialisation: " + std::to_string(x.shape(0)) +
                     " rows are fewer than the " + std::to_string(count) +
                     " components; lower the component count");
  KMeansOptions kopt;
  kopt.threads = options.threads;
  kopt.count = count;
  const KMeansResult km = kmeans(x, kopt, rng);
  if (kmeans_repairs) *kmeans_repairs += km.empty_cluster_repairs;
  Centres initial;
  Vector weights;
  mixture_from_assignment(x, km.assignment, km.centres, options.shape, options.covariance_floor,
                          initial, weights);
  return em_mixture(x, std::move(initial), std::move(weights), options);
}

ClassMixtures fit_class_mixtures(const Matrix& x, const Labels& classes, std::size_t num_classes,
                                 std::size_t count, const EmOptions& options,
                                 std::mt19937_64& rng, const std::string& where) {
  const std::size_t n_rows = x.shape(0), d = x.shape(1);
  if (classes.size() != n_rows)
    throw ShapeError(where + ": " + std::to_string(classes.size()) + " class labels for " +
                     std::to_string(n_rows) + " rows");
  std::vector<std::vector<std::size_t>> rows(num_classes);
  for (std::size_t n = 0; n < n_rows; ++n) {
    const std::int64_t c = classes(n);
    if (c < 0 || std::size_t(c) >= num_classes)
      throw InputError(where + ": row " + std::to_string(n) + " has class index " +
                       std::to_string(c) + " outside 0.." + std::to_string(num_classes - 1));
    rows[std::size_t(c)].push_back(n);
  }
  ClassMixtures out;
  const std::size_t m = num_classes * count;
  allocate_shape(out.centres, m, d, options.shape);
  out.centres.owner = Labels::from_shape({m});
  out.centres.mixing = xt::zeros<double>({m, num_classes});
  out.centres.class_priors = Vector::from_shape({num_classes});
  for (std::size_t k = 0; k < num_classes; ++k) {
    if (rows[k].size() < count)
      throw InputError(where + ": class " + std::to_string(k) + " has " +
                       std::to_string(rows[k].size()) + " training rows, fewer than count = " +
                       std::to_string(count) + " Gaussians per class; lower count");
    Matrix xk = Matrix::from_shape({rows[k].size(), d});
    for (std::size_t i = 0; i < rows[k].size(); ++i)
      std::memcpy(&xk(i, 0), &x(rows[k][i], 0), d * sizeof(double));
    EmResult fit = em_mixture_kmeans(xk, count, options, rng, &out.kmeans_repairs);
    for (std::size_t g = 0; g < count; ++g) {
      const std::size_t j = k * count + g;
      for (std::size_t c = 0; c < d; ++c) out.centres.means(j, c) = fit.components.means(g, c);
      if (options.shape == Shape::Spherical) out.centres.variances(j) = fit.components.variances(g);
      if (options.shape == Shape::Diagonal)
        for (std::size_t c = 0; c < d; ++c) out.centres.diagonal(j, c) = fit.components.diagonal(g, c);
      if (options.shape == Shape::Full)
        for (std::size_t a = 0; a < d; ++a)
          for (std::size_t b = 0; b < d; ++b)
            out.centres.covariances(j, a, b) = fit.components.covariances(g, a, b);
      out.centres.owner(j) = std::int64_t(k);
      out.centres.mixing(j, k) = fit.weights(g);
    }
    out.centres.class_priors(k) = double(rows[k].size()) / double(n_rows);
    out.per_class.push_back(std::move(fit));
  }
  return out;
}

double mixture_log_likelihood(const Matrix& x, const Centres& components, const Vector& weights) {
  const Vector lw = log_of(weights);
  check_inputs(x, components, lw, "mixture_log_likelihood");
  GaussianLogDensity density(components);
  const std::size_t n_rows = x.shape(0), m = components.count(), block = 512;
  Matrix xb, a;
  std::vector<double> lse;
  double total = 0;
  for (std::size_t first = 0; first < n_rows; first += block) {
    const std::size_t rows = std::min(block, n_rows - first);
    copy_rows(x, first, rows, xb);
    density.compute(xb, a);
    for (std::size_t n = 0; n < rows; ++n)
      for (std::size_t j = 0; j < m; ++j) a(n, j) += lw(j);
    dense_responsibilities(a, lse);
    for (const double l : lse) total += l;
  }
  return total;
}

}  // namespace radial
