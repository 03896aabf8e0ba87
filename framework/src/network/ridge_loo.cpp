// Closed-form LOO and GCV of ridge least squares (radial/network/ridge_loo.hpp).
#include "radial/network/ridge_loo.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/network/gram_products.hpp"
#include "radial/numerics/least_squares.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/exec/cpu.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/distributed/sharded_pass.hpp"

namespace radial {

namespace {

using Index = xt::blas_index_t;

// Pass 1: Phi^T Phi, Phi^T T and the column sums of T, over all ranks (gram_products: the same
// bits for any thread count).
struct Moments {
  Matrix gram;         // P x P, bias last
  Matrix cross;        // P x K
  Vector target_sums;  // K
};

Moments first_pass(const DesignMatrix& design, const Matrix& t) {
  const std::size_t k = t.shape(1);
  std::vector<double> target_sums(k, 0.0);  // summed over the ranks with the products
  for (std::size_t n = 0; n < t.shape(0); ++n)
    for (std::size_t c = 0; c < k; ++c) target_sums[c] += t(n, c);
  // The design's blocks are finite (DesignMatrix refuses others).
  GramProducts g = gram_products(design, t, {}, &target_sums);
  Moments m{std::move(g.gram), std::move(g.cross), xt::zeros<double>({k})};
  std::copy(target_sums.begin(), target_sums.end(), m.target_sums.begin());
  return m;
}

}  // namespace

std::vector<double> default_lambda_factors(std::size_t count) {
  std::vector<double> f(count);
  for (std::size_t l = 0; l < count; ++l)
    f[l] = std::pow(10.0, -9.0 + 10.0 * double(l) / double(std::max<std::size_t>(count - 1, 1)));
  return f;
}

namespace {

// The centred problem in a tridiagonal basis of its Gram: A = Phi_c^T Phi_c = V T V^T with T
// symmetric tridiagonal (diagonal `diag`, subdiagonal `sub`), Q = V^T B, mu the column means of
// Phi, tbar those of the targets, and V^T mu. The penalties of `path` are set (relative to
// trace A / M when asked).
//
// Every penalty's leverages and fits need only (T + lambda I)^{-1}, by its LDL^T factorisation
// in O(M) (path_factors), so A is reduced to T (LAPACK dsytrd and dorgtr, 8/3 M^3 flops) and
// not diagonalised (dsyevd, about 9 M^3): at 60 / 171 / 581 centres 0.06 / 0.69 / 16 ms where
// dsyevd took 0.30 / 2.0 / 36 ms on one core of session 55's EPYC, and the eigendecomposition
// was the largest part of a small set's selection. trace H comes from the diagonal of
// (T + lambda I)^{-1} (path_dof), so no eigenvalue is needed. When a factorisation has a pivot
// that is not positive (a penalty of 0 on a singular Gram: only with absolute penalties), A is
// diagonalised instead (dsyevd): T is then diag(e), with the eigenvectors for V.
struct ReducedProblem {
  std::size_t m = 0;
  double n = 0;
  Vector mu, tbar;
  std::vector<double> diag, sub;  // T (sub: m - 1 entries)
  Matrix v;  // V row-major (m x m)
  Matrix q;  // V^T B (m x K)
  std::vector<double> vmu;
};

// With a metric S = L L^T: A := L^{-1} A L^{-T} in place (a column-major, lower L row-major
// read as its transpose, upper column-major). Returns L for the eigenvectors' back-transform.
Matrix whiten(const Matrix& metric, xt::xtensor<double, 2, xt::layout_type::column_major>& a) {
  const std::size_t m = a.shape(0);
  if (metric.shape(0) != m || metric.shape(1) != m)
    throw ShapeError("model selection: the penalty's metric is " +
                     std::to_string(metric.shape(0)) + " x " + std::to_string(metric.shape(1)) +
                     " for " + std::to_string(m) + " centres");
  Matrix factor = metric;  // row-major S: as column-major it is S too (symmetric)
  if (cxxlapack::potrf<Index>('L', Index(m), factor.data(), Index(m)) != 0)
    throw NumericalError("model selection: the penalty's metric is not positive definite");
  // factor (column-major) holds L in its lower triangle: A := L^{-1} A L^{-T}, symmetrised
  // (syevd reads one triangle).
  whiten_by_factor(a.data(), factor.data(), m);
  return factor;
}

// Whether T + lambda I has an LDL^T factorisation with positive finite pivots for every lambda.
bool factorable(const std::vector<double>& diag, const std::vector<double>& sub,
                const std::vector<double>& lambdas) {
  for (const double lambda : lambdas) {
    double pivot = diag[0] + lambda;
    if (!(pivot > 0) || !std::isfinite(pivot)) return false;
    for (std::size_t j = 1; j < diag.size(); ++j) {
      pivot = diag[j] + lambda - sub[j - 1] * sub[j - 1] / pivot;
      if (!(pivot > 0) || !std::isfinite(pivot)) return false;
    }
  }
  return true;
}

ReducedProblem centred_reduction(const Moments& mo, std::size_t k,
                                 const std::vector<double>& lambdas, bool relative,
                                 const Matrix* metric, RidgePath& path) {
  ReducedProblem ep;
  const std::size_t m = mo.gram.shape(0) - 1;
  ep.m = m;
  ep.n = mo.gram(m, m);  // the bias column's sum of squares: N over all ranks
  const double n = ep.n;
  // Centred Gram A = G - N mu mu^T and cross B = C - N mu tbar^T (mu: column means of Phi).
  ep.mu = xt::zeros<double>({m});
  for (std::size_t i = 0; i < m; ++i) ep.mu(i) = mo.gram(i, m) / n;
  ep.tbar = mo.target_sums / n;
  // Column by column (a is column-major; the Gram is symmetric, read along its rows); made
  // again for dsyevd when T + lambda I cannot be factorised (dsytrd overwrites it).
  xt::xtensor<double, 2, xt::layout_type::column_major> a =
      xt::xtensor<double, 2, xt::layout_type::column_major>::from_shape({m, m});
  const auto centre = [&] {
    for (std::size_t j = 0; j < m; ++j) {
      const double* gram_j = &mo.gram(j, 0);
      double* a_j = a.data() + j * m;
      for (std::size_t i = 0; i < m; ++i) a_j[i] = gram_j[i] - n * ep.mu(i) * ep.mu(j);
    }
  };
  centre();
  const Matrix factor = metric ? whiten(*metric, a) : Matrix();
  const Index mi = Index(m);
  ep.diag.assign(m, 0.0);
  ep.sub.assign(m, 0.0);  // m - 1 used
  std::vector<double> tau(std::max<std::size_t>(m, 1)), work(1);
  double size = 0, size_q = 0;  // the workspace queries (lWork -1)
  cxxlapack::sytrd<Index>('L', mi, a.data(), mi, ep.diag.data(), ep.sub.data(), tau.data(),
                          &size, Index(-1));
  cxxlapack::orgtr<Index>('L', mi, a.data(), mi, tau.data(), &size_q, Index(-1));
  const Index lwork = Index(std::max({size, size_q, 1.0}));
  work.resize(std::size_t(lwork));
  Index info = cxxlapack::sytrd<Index>('L', mi, a.data(), mi, ep.diag.data(), ep.sub.data(),
                                       tau.data(), work.data(), lwork);
  if (info != 0)
    throw NumericalError("model selection: the tridiagonal reduction of the centred Gram matrix "
                         "failed (LAPACK dsytrd info " + std::to_string(info) + ")");
  ep.sub.resize(m > 0 ? m - 1 : 0);
  double trace = 0;  // trace A = trace T
  for (const double x : ep.diag) trace += x;
  const double scale = relative ? std::max(trace, 0.0) / double(m) : 1.0;
  path.lambdas.resize(lambdas.size());
  for (std::size_t l = 0; l < lambdas.size(); ++l) path.lambdas[l] = lambdas[l] * scale;
  if (factorable(ep.diag, ep.sub, path.lambdas)) {
    info = cxxlapack::orgtr<Index>('L', mi, a.data(), mi, tau.data(), work.data(), lwork);
    if (info != 0)
      throw NumericalError("model selection: forming the tridiagonal basis failed (LAPACK "
                           "dorgtr info " + std::to_string(info) + ")");
  } else {
    centre();
    if (metric) whiten_by_factor(a.data(), factor.data(), m);
    xt::xtensor<double, 1, xt::layout_type::column_major> values = xt::zeros<double>({m});
    if (xt::lapack::syevd(a, 'V', 'L', values) != 0)
      throw NumericalError(
          "model selection: the eigendecomposition of the centred Gram matrix "
          "did not converge");
    for (std::size_t i = 0; i < m; ++i) ep.diag[i] = std::max(values(i), 0.0);  // rounding
    std::fill(ep.sub.begin(), ep.sub.end(), 0.0);
  }
  if (metric)  // V = L^{-T} Q: z_n = V^T (phi_n - mu) are the whitened rows' coordinates
    cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Left, cxxblas::Lower, cxxblas::Trans,
                         cxxblas::NonUnit, Index(m), Index(m), 1.0, factor.data(), Index(m),
                         a.data(), Index(m));
  ep.v = Matrix::from_shape({m, m});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < m; ++j) ep.v(i, j) = a(i, j);
  // Q = V^T B by one product (single-threaded BLAS here: the same bits on every rank).
  Matrix b = Matrix::from_shape({m, k});
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < k; ++c) b(r, c) = mo.cross(r, c) - n * ep.mu(r) * ep.tbar(c);
  ep.q = Matrix::from_shape({m, k});
  cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(m), Index(k),
                       Index(m), 1.0, ep.v.data(), Index(m), b.data(), Index(k), 0.0,
                       ep.q.data(), Index(k));
  ep.vmu.assign(m, 0.0);  // V^T mu
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t i = 0; i < m; ++i) ep.vmu[i] += ep.v(r, i) * ep.mu(r);
  return ep;
}

// Per penalty, the LDL^T factorisation of T + lambda I: L unit lower bidiagonal with
// subdiagonal `multiplier`, D = diag(1 / inverse_pivot).
struct PathFactors {
  Matrix inverse_pivot;  // L x m
  Matrix multiplier;     // L x m (the last column unused)
};

PathFactors path_factors(const ReducedProblem& ep, const std::vector<double>& lambdas) {
  const std::size_t m = ep.m, L = lambdas.size();
  PathFactors f{xt::zeros<double>({L, m}), xt::zeros<double>({L, m})};
  for (std::size_t l = 0; l < L; ++l) {
    double pivot = ep.diag[0] + lambdas[l];
    for (std::size_t j = 0;; ++j) {
      f.inverse_pivot(l, j) = 1.0 / pivot;
      if (j + 1 == m) break;
      const double mult = ep.sub[j] / pivot;
      f.multiplier(l, j) = mult;
      pivot = ep.diag[j + 1] + lambdas[l] - mult * ep.sub[j];
    }
  }
  return f;
}

// trace H = 1 + trace(A (A + lambda I)^{-1}) = 1 + m - lambda trace((T + lambda I)^{-1}) (the
// bias, then the penalised columns), the inverse's diagonal from the forward and backward
// pivots: ((T + lambda I)^{-1})_jj = 1 / (f_j + b_j - (t_jj + lambda)) (Meurant 1992).
double path_dof(const ReducedProblem& ep, double lambda) {
  const std::size_t m = ep.m;
  std::vector<double> forward(m), backward(m);
  forward[0] = ep.diag[0] + lambda;
  for (std::size_t j = 1; j < m; ++j)
    forward[j] = ep.diag[j] + lambda - ep.sub[j - 1] * ep.sub[j - 1] / forward[j - 1];
  backward[m - 1] = ep.diag[m - 1] + lambda;
  for (std::size_t j = m - 1; j-- > 0;)
    backward[j] = ep.diag[j] + lambda - ep.sub[j] * ep.sub[j] / backward[j + 1];
  double inverse_trace = 0;
  for (std::size_t j = 0; j < m; ++j)
    inverse_trace += 1.0 / (forward[j] + backward[j] - (ep.diag[j] + lambda));
  return 1.0 + double(m) - lambda * inverse_trace;
}

// The leverages z_r^T (T + lambda_l I)^{-1} z_r of every row and penalty: zt holds the rows'
// coordinates as columns (m x stride, stride a multiple of 8, the padding rows' results written
// too), `out` is stride x L. Each chain y_j = z_j - l_{j-1} y_{j-1} is serial in j, so 8 rows
// are the vector lanes and `group` penalties the independent chains that fill the pipeline.
template <std::size_t group>
void leverages_portable(const double* zt, std::size_t stride, std::size_t m,
                        const PathFactors& f, double* out, std::size_t L) {
  for (std::size_t r0 = 0; r0 < stride; r0 += 8)
    for (std::size_t l0 = 0; l0 < L; l0 += group) {
      const std::size_t g_end = std::min(group, L - l0);
      double y[group][8], h[group][8];
      for (std::size_t g = 0; g < g_end; ++g)
        for (std::size_t r = 0; r < 8; ++r) {
          y[g][r] = zt[r0 + r];
          h[g][r] = y[g][r] * y[g][r] * f.inverse_pivot(l0 + g, 0);
        }
      for (std::size_t j = 1; j < m; ++j) {
        const double* zj = zt + j * stride + r0;
        for (std::size_t g = 0; g < g_end; ++g) {
          const double mj = f.multiplier(l0 + g, j - 1), dj = f.inverse_pivot(l0 + g, j);
          for (std::size_t r = 0; r < 8; ++r) {
            y[g][r] = zj[r] - mj * y[g][r];
            h[g][r] += y[g][r] * y[g][r] * dj;
          }
        }
      }
      for (std::size_t g = 0; g < g_end; ++g)
        for (std::size_t r = 0; r < 8; ++r) out[(r0 + r) * L + l0 + g] = h[g][r];
    }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) void leverages_avx512(const double* zt, std::size_t stride,
                                                         std::size_t m, const PathFactors& f,
                                                         double* out, std::size_t L) {
  constexpr std::size_t group = 8;
  for (std::size_t r0 = 0; r0 < stride; r0 += 8)
    for (std::size_t l0 = 0; l0 < L; l0 += group) {
      const std::size_t g_end = std::min(group, L - l0);
      __m512d y[group], h[group];
      const __m512d z0 = _mm512_loadu_pd(zt + r0);
      for (std::size_t g = 0; g < group; ++g) {
        y[g] = z0;
        h[g] = g < g_end ? _mm512_mul_pd(_mm512_mul_pd(z0, z0),
                                         _mm512_set1_pd(f.inverse_pivot(l0 + g, 0)))
                         : _mm512_setzero_pd();
      }
      for (std::size_t j = 1; j < m; ++j) {
        const __m512d zj = _mm512_loadu_pd(zt + j * stride + r0);
        for (std::size_t g = 0; g < group; ++g) {
          if (g >= g_end) break;
          y[g] = _mm512_fnmadd_pd(_mm512_set1_pd(f.multiplier(l0 + g, j - 1)), y[g], zj);
          h[g] = _mm512_fmadd_pd(_mm512_mul_pd(y[g], y[g]),
                                 _mm512_set1_pd(f.inverse_pivot(l0 + g, j)), h[g]);
        }
      }
      alignas(64) double lanes[8];
      for (std::size_t g = 0; g < g_end; ++g) {
        _mm512_store_pd(lanes, h[g]);
        for (std::size_t r = 0; r < 8; ++r) out[(r0 + r) * L + l0 + g] = lanes[r];
      }
    }
}
#endif

void leverages(const double* zt, std::size_t stride, std::size_t m, const PathFactors& f,
               double* out, std::size_t L) {
#if defined(__x86_64__)
  if (use_avx512_kernels()) return leverages_avx512(zt, stride, m, f, out, L);
#endif
  leverages_portable<4>(zt, stride, m, f, out, L);
}

// One worker's scratch for one block and its partial sums.
struct PathScratch {
  Matrix z, hats, fits;
  std::vector<double> zt;         // Z transposed (m x rows padded to a multiple of 8)
  std::vector<double> residuals;  // one row's, for one lambda
  std::vector<double> sums;
};

// One block of pass 2: per row, the fits Z W of every lambda at once by one product
// (W = [(T + lambda_l I)^{-1} Q]_l) and the hat diagonals h = 1/N + z^T (T + lambda I)^{-1} z,
// each the sum of y_j^2 / d_j over y = L^{-1} z (the factors of path_factors), the rows side by
// side; then the sums [LOO SSE, SSE, LOO errors] per lambda into w.sums.
void path_block(const ReducedProblem& ep, const PathFactors& f, const Matrix& qg, const Matrix& t,
                bool one_of_k, std::size_t first, const Matrix& block, PathScratch& w) {
  const std::size_t m = ep.m, p = m + 1, k = t.shape(1), L = qg.shape(1) / k,
                    rows = block.shape(0);
  const double n = ep.n;
  const auto fit_rows = [](Matrix& x, std::size_t r, std::size_t c) {
    if (x.dimension() != 2 || x.shape(0) != r || x.shape(1) != c) x.resize({r, c});
  };
  Matrix &z = w.z, &fits = w.fits, &hats = w.hats;
  std::vector<double>& part = w.sums;
  part.assign(3 * L, 0.0);
  fit_rows(z, rows, m);
  fit_rows(fits, rows, L * k);
  // Z = (Phi - 1 mu^T) V = Phi V - 1 (V^T mu)^T, from the block's first m columns.
  const bool own = small_gemm_beats_blas();
  if (own)
    small_gemm(rows, m, m, block.data(), p, 1, ep.v.data(), m, z.data(), m, false);
  else
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                         Index(m), Index(m), 1.0, block.data(), Index(p), ep.v.data(), Index(m),
                         0.0, z.data(), Index(m));
  const std::size_t stride = (rows + 7) / 8 * 8;  // the leverages' rows, padded with zeros
  for (std::size_t r = 0; r < rows; ++r) {
    double* zr = z.data() + r * m;
    for (std::size_t i = 0; i < m; ++i) zr[i] -= ep.vmu[i];
  }
  // Z^T for the leverages, in 8 x 8 tiles (a column at a time would miss the cache per entry).
  w.zt.assign(m * stride, 0.0);
  for (std::size_t r0 = 0; r0 < rows; r0 += 8)
    for (std::size_t i0 = 0; i0 < m; i0 += 8)
      for (std::size_t i = i0; i < std::min(i0 + 8, m); ++i)
        for (std::size_t r = r0; r < std::min(r0 + 8, rows); ++r)
          w.zt[i * stride + r] = z(r, i);
  if (own)
    small_gemm(rows, L * k, m, z.data(), m, 1, qg.data(), L * k, fits.data(), L * k, false);
  else
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                         Index(L * k), Index(m), 1.0, z.data(), Index(m), qg.data(),
                         Index(L * k), 0.0, fits.data(), Index(L * k));
  fit_rows(hats, stride, L);
  leverages(w.zt.data(), stride, m, f, hats.data(), L);
  std::vector<double>& res = w.residuals;
  res.resize(k);
  const double* tbar = ep.tbar.data();
  for (std::size_t r = 0; r < rows; ++r) {
    const double* t_row = t.data() + (first + r) * k;
    const std::size_t truth =
        std::size_t(std::max_element(t_row, t_row + k) - t_row);  // 1-of-K targets
    const double* fit_row = fits.data() + r * L * k;
    for (std::size_t l = 0; l < L; ++l) {
      const double keep = 1.0 - (1.0 / n + hats(r, l));
      const double* fit = fit_row + l * k;
      double row_sse = 0;
      for (std::size_t c = 0; c < k; ++c) {
        res[c] = t_row[c] - tbar[c] - fit[c];
        row_sse += res[c] * res[c];
      }
      part[L + l] += row_sse;
      part[l] += keep > 1e-12 ? row_sse / (keep * keep) : std::numeric_limits<double>::infinity();
      if (!one_of_k) continue;
      if (!(keep > 1e-12)) {  // every value 0: class 0 is predicted, and counted wrong
        part[2 * L + l] += 1;
        continue;
      }
      // The row's prediction without it: t - e / (1 - h); wrong when its arg max is not the
      // row's class (the first of equal values, as the metrics count).
      std::size_t best = 0;
      double best_value = -std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < k; ++c) {
        const double value = t_row[c] - res[c] / keep;
        if (value > best_value) {
          best_value = value;
          best = c;
        }
      }
      part[2 * L + l] += best != truth;
    }
  }
}

// Pass 2 over the rows of every rank: the per-lambda sums [LOO SSE, SSE, LOO errors].
std::vector<double> path_sums(const DesignMatrix& design, const ReducedProblem& ep,
                              const Matrix& t, const std::vector<double>& lambdas,
                              bool one_of_k) {
  const std::size_t m = ep.m, k = t.shape(1), L = lambdas.size();
  const PathFactors f = path_factors(ep, lambdas);
  // W = [(T + lambda_l I)^{-1} Q]_l (m x L K): L D L^T w = q, column by column.
  Matrix qg = Matrix::from_shape({m, L * k});
  std::vector<double> x(m);
  for (std::size_t l = 0; l < L; ++l)
    for (std::size_t c = 0; c < k; ++c) {
      x[0] = ep.q(0, c);
      for (std::size_t j = 1; j < m; ++j) x[j] = ep.q(j, c) - f.multiplier(l, j - 1) * x[j - 1];
      for (std::size_t j = 0; j < m; ++j) x[j] *= f.inverse_pivot(l, j);
      for (std::size_t j = m - 1; j-- > 0;) x[j] -= f.multiplier(l, j) * x[j + 1];
      for (std::size_t j = 0; j < m; ++j) qg(j, l * k + c) = x[j];
    }
  std::vector<double> sums(3 * L, 0.0);
  std::exception_ptr failure;
  try {
    // Per worker: scratch for one block and its partial sums, added in block order.
    std::vector<PathScratch> scratch(
        worker_count(design.rows(), design.block_rows(), design.threads()));
    design.reduce_blocks(
        [&](std::size_t w, std::size_t first, const Matrix& block) {
          path_block(ep, f, qg, t, one_of_k, first, block, scratch[w]);
        },
        [&](std::size_t w, std::size_t) {
          for (std::size_t i = 0; i < 3 * L; ++i) sums[i] += scratch[w].sums[i];
        });
  } catch (...) {
    failure = std::current_exception();
  }
  sum_pass_over_ranks(sums, failure);
  return sums;
}

}  // namespace

RidgePath ridge_loo_path(const DesignMatrix& design, const Matrix& t,
                         const std::vector<double>& lambdas, bool relative, bool one_of_k,
                         const Matrix* metric, const DesignMatrix* scored,
                         const Matrix* scored_targets) {
  const SingleThreadedBlasScope blas;  // the same bits for any thread count
  const std::size_t p = design.cols(), k = t.shape(1), L = lambdas.size();
  if (p < 2) throw InputError("model selection: the design has no basis columns");
  const Moments mo = first_pass(design, t);
  RidgePath path;
  path.rows = std::size_t(mo.gram(p - 1, p - 1));
  if (!(mo.gram(p - 1, p - 1) > 0)) throw InputError("model selection: there are no training rows");
  if (scored && (!scored_targets || scored->cols() != p || scored_targets->shape(1) != k ||
                 scored_targets->shape(0) != scored->rows()))
    throw ShapeError("model selection: the scored rows do not match the design");
  const ReducedProblem ep = centred_reduction(mo, k, lambdas, relative, metric, path);
  const std::vector<double> sums =
      scored ? path_sums(*scored, ep, *scored_targets, path.lambdas, one_of_k)
             : path_sums(design, ep, t, path.lambdas, one_of_k);
  const double n = ep.n;
  // The sums' rows: all of them, or the scored sample (over all ranks).
  const double scored_n = scored ? double(count_over_ranks(scored->rows())) : n;
  if (!(scored_n > 0)) throw InputError("model selection: there are no scored rows");
  path.scored_rows = std::size_t(scored_n);
  path.loo.resize(L);
  path.gcv.resize(L);
  path.dof.resize(L);
  if (one_of_k) path.loo_error.resize(L);
  for (std::size_t l = 0; l < L; ++l) {
    if (one_of_k) path.loo_error[l] = sums[2 * L + l] / scored_n;
    const double dof = path_dof(ep, path.lambdas[l]);
    path.loo[l] = sums[l] / scored_n;
    path.dof[l] = dof;
    const double left = n - dof;
    const double sse = sums[L + l] * (n / scored_n);  // over all the rows (estimated if scored)
    path.gcv[l] = left > 0 ? n * sse / (left * left) : std::numeric_limits<double>::infinity();
  }
  return path;
}

}  // namespace radial
