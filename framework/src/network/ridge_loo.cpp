// Closed-form LOO and GCV of ridge least squares (radial/network/ridge_loo.hpp).
#include "radial/network/ridge_loo.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <string>
#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/network/gram_products.hpp"
#include "radial/numerics/least_squares.hpp"
#include "radial/numerics/small_gemm.hpp"
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

// The centred problem in the eigenbasis of its Gram: A = Phi_c^T Phi_c = V diag(e) V^T with
// e ascending (clipped at 0), Q = V^T B, mu the column means of Phi, tbar those of T, and
// V^T mu. The penalties of `path` are set (relative to trace A / M when asked).
struct EigenProblem {
  std::size_t m = 0;
  double n = 0;
  Vector mu, tbar;
  xt::xtensor<double, 1, xt::layout_type::column_major> e;
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

EigenProblem centred_eigen(const Moments& mo, std::size_t k, const std::vector<double>& lambdas,
                           bool relative, const Matrix* metric, RidgePath& path) {
  EigenProblem ep;
  const std::size_t m = mo.gram.shape(0) - 1;
  ep.m = m;
  ep.n = mo.gram(m, m);  // the bias column's sum of squares: N over all ranks
  const double n = ep.n;
  // Centred Gram A = G - N mu mu^T and cross B = C - N mu tbar^T (mu: column means of Phi).
  ep.mu = xt::zeros<double>({m});
  for (std::size_t i = 0; i < m; ++i) ep.mu(i) = mo.gram(i, m) / n;
  ep.tbar = mo.target_sums / n;
  // Column by column (a is column-major; the Gram is symmetric, read along its rows).
  xt::xtensor<double, 2, xt::layout_type::column_major> a =
      xt::xtensor<double, 2, xt::layout_type::column_major>::from_shape({m, m});
  for (std::size_t j = 0; j < m; ++j) {
    const double* gram_j = &mo.gram(j, 0);
    double* a_j = a.data() + j * m;
    for (std::size_t i = 0; i < m; ++i) a_j[i] = gram_j[i] - n * ep.mu(i) * ep.mu(j);
  }
  const Matrix factor = metric ? whiten(*metric, a) : Matrix();
  ep.e = xt::zeros<double>({m});
  if (xt::lapack::syevd(a, 'V', 'L', ep.e) != 0)
    throw NumericalError(
        "model selection: the eigendecomposition of the centred Gram matrix "
        "did not converge");
  path.eigenvalues.assign(ep.e.begin(), ep.e.end());
  double trace = 0;
  for (std::size_t i = 0; i < m; ++i) {
    ep.e(i) = std::max(ep.e(i), 0.0);  // rounding below 0 in a PSD matrix
    trace += ep.e(i);
  }
  const double scale = relative ? trace / double(m) : 1.0;
  path.lambdas.resize(lambdas.size());
  for (std::size_t l = 0; l < lambdas.size(); ++l) path.lambdas[l] = lambdas[l] * scale;
  if (metric)  // V = L^{-T} U: z_n = V^T (phi_n - mu) are the whitened rows' coordinates
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

// One worker's scratch for one block and its partial sums.
struct PathScratch {
  Matrix z, hats, fits;
  std::vector<double> residuals;  // one row's, for one lambda
  std::vector<double> sums;
};

// One block of pass 2: per row, the hat diagonals h = 1/N + (Z o Z) G and the fits Z (G o Q)
// of every lambda at once, by two products (G(i, l) = 1 / (e_i + lambda_l)); then the sums
// [LOO SSE, SSE, LOO errors] per lambda into w.sums.
void path_block(const EigenProblem& ep, const Matrix& g, const Matrix& qg, const Matrix& t,
                bool one_of_k, std::size_t first, const Matrix& block, PathScratch& w) {
  const std::size_t m = ep.m, p = m + 1, k = t.shape(1), L = g.shape(1), rows = block.shape(0);
  const double n = ep.n;
  const auto fit_rows = [](Matrix& x, std::size_t r, std::size_t c) {
    if (x.dimension() != 2 || x.shape(0) != r || x.shape(1) != c) x.resize({r, c});
  };
  Matrix &z = w.z, &fits = w.fits, &hats = w.hats;
  std::vector<double>& part = w.sums;
  part.assign(3 * L, 0.0);
  fit_rows(z, rows, m);
  fit_rows(fits, rows, L * k);
  fit_rows(hats, rows, L);
  // Z = (Phi - 1 mu^T) V = Phi V - 1 (V^T mu)^T, from the block's first m columns.
  const bool own = small_gemm_beats_blas();
  if (own)
    small_gemm(rows, m, m, block.data(), p, 1, ep.v.data(), m, z.data(), m, false);
  else
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                         Index(m), Index(m), 1.0, block.data(), Index(p), ep.v.data(), Index(m),
                         0.0, z.data(), Index(m));
  for (std::size_t r = 0; r < rows; ++r) {
    double* zr = z.data() + r * m;
    for (std::size_t i = 0; i < m; ++i) zr[i] -= ep.vmu[i];
  }
  if (own)
    small_gemm(rows, L * k, m, z.data(), m, 1, qg.data(), L * k, fits.data(), L * k, false);
  else
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                         Index(L * k), Index(m), 1.0, z.data(), Index(m), qg.data(),
                         Index(L * k), 0.0, fits.data(), Index(L * k));
  for (double& x : z) x *= x;  // Z o Z, in place: Z is not needed again
  if (own)
    small_gemm(rows, L, m, z.data(), m, 1, g.data(), L, hats.data(), L, false);
  else
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                         Index(L), Index(m), 1.0, z.data(), Index(m), g.data(), Index(L), 0.0,
                         hats.data(), Index(L));
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
std::vector<double> path_sums(const DesignMatrix& design, const EigenProblem& ep,
                              const Matrix& t, const std::vector<double>& lambdas,
                              bool one_of_k) {
  const std::size_t m = ep.m, k = t.shape(1), L = lambdas.size();
  Matrix g = Matrix::from_shape({m, L});
  Matrix qg = Matrix::from_shape({m, L * k});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < L; ++l) {
      g(i, l) = 1.0 / (ep.e(i) + lambdas[l]);
      for (std::size_t c = 0; c < k; ++c) qg(i, l * k + c) = ep.q(i, c) * g(i, l);
    }
  std::vector<double> sums(3 * L, 0.0);
  std::exception_ptr failure;
  try {
    // Per worker: scratch for one block and its partial sums, added in block order.
    std::vector<PathScratch> scratch(
        worker_count(design.rows(), design.block_rows(), design.threads()));
    design.reduce_blocks(
        [&](std::size_t w, std::size_t first, const Matrix& block) {
          path_block(ep, g, qg, t, one_of_k, first, block, scratch[w]);
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
  const EigenProblem ep = centred_eigen(mo, k, lambdas, relative, metric, path);
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
    double dof = 1.0;  // the bias
    for (std::size_t i = 0; i < ep.m; ++i) dof += ep.e(i) / (ep.e(i) + path.lambdas[l]);
    path.dof[l] = dof;
    path.loo[l] = sums[l] / scored_n;
    const double left = n - dof;
    const double sse = sums[L + l] * (n / scored_n);  // over all the rows (estimated if scored)
    path.gcv[l] = left > 0 ? n * sse / (left * left) : std::numeric_limits<double>::infinity();
  }
  return path;
}

}  // namespace radial
