// Least-squares output weights, plain or ridge (see least_squares_output.hpp).
#include "least_squares_output.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/network/gram_products.hpp"
#include "radial/numerics/least_squares.hpp"
#include "radial/network/normal_cg.hpp"
#include "radial/numerics/normal_rows.hpp"
#include "radial/numerics/side_conditions.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/core/text.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::plugins {

namespace {

using Index = xt::blas_index_t;

// The penalty as a quadratic in one output column w (P entries):
//   penalty(w) = penalty(0) + g^T w + 1/2 w^T H w.
struct QuadraticPenalty {
  bool active = false;
  Matrix hessian;   // P x P
  Matrix gradient;  // P x 1
};

QuadraticPenalty quadratic_penalty(const WeightPenalty* penalty, std::size_t p) {
  QuadraticPenalty q;
  if (penalty == nullptr) return q;
  const Matrix zero = xt::zeros<double>({p, std::size_t(1)});
  q.active = true;
  q.hessian = xt::zeros<double>({p, p});
  q.gradient = xt::zeros<double>({p, std::size_t(1)});
  penalty->add_hessian(zero, q.hessian);
  penalty->add_gradient(zero, q.gradient);
  return q;
}

// The penalty the selection scores (its metric S, radial/training/selection.cpp): H plus 1e-8
// of H's largest entry on the diagonal of its penalised rows. Whitened by it, the penalty's
// part is at least I / 2 even when a wide Gaussian's K_MM is singular to rounding.
constexpr double metric_jitter = 1e-8;

// Adds the jitter to `a` (P x P) and to q's Hessian.
void add_metric_jitter(QuadraticPenalty& q, Matrix& a) {
  const std::size_t p = q.hessian.shape(0);
  double largest = 0;
  for (const double v : q.hessian) largest = std::max(largest, std::abs(v));
  for (std::size_t i = 0; i < p; ++i) {
    bool penalised = false;
    for (std::size_t j = 0; j < p; ++j) penalised = penalised || q.hessian(i, j) != 0;
    if (!penalised) continue;
    q.hessian(i, i) += metric_jitter * largest;
    a(i, i) += metric_jitter * largest;
  }
}

// Phi^T Phi + H and Phi^T T - G over all ranks' rows (gram_products: the same bits for any
// thread count and on every rank, which then all make the same solve).
GramProducts normal_equations(const DesignMatrix& design, const Matrix& t,
                              const QuadraticPenalty& q) {
  // The blocks are finite: DesignMatrix refuses a non-finite activation, naming its row.
  GramProducts ne = gram_products(design, t, {});
  if (q.active) {
    const std::size_t p = ne.gram.shape(0), k = ne.cross.shape(1);
    ne.gram += q.hessian;
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) ne.cross(i, c) -= q.gradient(i, 0);
  }
  return ne;
}

// The normal equations solved by their pseudo-inverse (solve_symmetric_psd).
LeastSquaresSolution solve_normal_equations(const DesignMatrix& design, const Matrix& t,
                                            const QuadraticPenalty& q, double rcond) {
  const GramProducts ne = normal_equations(design, t, q);
  return solve_symmetric_psd(ne.gram, ne.cross, rcond);
}

// The 1-norm of a symmetric matrix from its lower triangle (column-major).
double cxxlapack_lansy_one(const xt::xtensor<double, 2, xt::layout_type::column_major>& a) {
  const int n = int(a.shape(0));
  std::vector<double> work(std::size_t(std::max(n, 1)));
  return cxxlapack::dlansy_("1", "L", &n, a.data(), &n, work.data());
}

// The reciprocal 1-norm condition number of A = L L^T estimated from L (lower, column-major).
double pocon_lower(const xt::xtensor<double, 2, xt::layout_type::column_major>& l, double norm) {
  const int n = int(l.shape(0));
  std::vector<double> work(3 * std::size_t(std::max(n, 1)));
  std::vector<int> iwork(std::size_t(std::max(n, 1)));
  double rcond = 0;
  int info = 0;
  cxxlapack::dpocon_("L", &n, l.data(), &n, &norm, &rcond, work.data(), iwork.data(), &info);
  if (info != 0) throw NumericalError("LAPACK dpocon failed (info = " + std::to_string(info) + ")");
  return rcond;
}

// A = L L^T (LAPACK dpotrf), x = A^{-1} b through it (dpotrs), and the reciprocal of A's
// 1-norm condition number estimated from the factor (dpocon: O(P^2) after the P^3 / 3 of the
// factor, where an eigendecomposition costs about 9 P^3).
//
// Or, whitened by a penalty's Hessian H (factor_whitened): A = S C C^T S^T with S S^T = H on
// its penalised rows (plus 1e-8 of its largest entry on the diagonal, the jitter the
// selection's metric has) and 1 on the others, C C^T = S^{-1} A S^{-T}. Under an RKHS penalty
// A = Phi^T Phi + alpha K_MM is ill-conditioned with K_MM (a Gaussian K_MM is singular to
// rounding), but S^{-1} A S^{-T} = S^{-1} Phi^T Phi S^{-T} + alpha I is not: Phi's columns are
// the kernel at the centres, so Phi^T Phi <= N max(K) K_MM (the selection's whitening, in
// ridge_loo.cpp, rests on the same bound).
struct SymmetricFactor {
  using ColMatrix = xt::xtensor<double, 2, xt::layout_type::column_major>;
  ColMatrix l;
  ColMatrix s;  // the whitening factor, when whitened
  bool whitened = false;
  double rcond = 0;

  // False when A is not numerically positive definite.
  bool factor(const Matrix& a) {
    whitened = false;
    return factor_inner(a);
  }

  // False when H's penalised block (with the jitter) or S^{-1} A S^{-T} is not positive definite.
  bool factor_whitened(const Matrix& a, const Matrix& h) {
    const std::size_t p = a.shape(0);
    double largest = 0;
    for (const double v : h) largest = std::max(largest, std::abs(v));
    if (!(largest > 0)) return false;
    s = ColMatrix::from_shape({p, p});
    for (std::size_t i = 0; i < p; ++i) {
      bool penalised = false;
      for (std::size_t j = 0; j < p; ++j) penalised = penalised || h(i, j) != 0;
      for (std::size_t j = 0; j < p; ++j) s(i, j) = h(i, j);
      s(i, i) += penalised ? 1e-8 * largest : 1.0;
    }
    if (cxxlapack::potrf<Index>('L', Index(p), s.data(), Index(p)) != 0) return false;
    Matrix inner = a;  // S^{-1} A S^{-T} (symmetric: row-major read as column-major)
    whiten_by_factor(inner.data(), s.data(), p);
    whitened = true;
    return factor_inner(inner);
  }

  Matrix solve(const Matrix& b) const {
    const std::size_t p = l.shape(0), k = b.shape(1);
    ColMatrix x = b;
    if (whitened)
      cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Left, cxxblas::Lower, cxxblas::NoTrans,
                           cxxblas::NonUnit, Index(p), Index(k), 1.0, s.data(), Index(p),
                           x.data(), Index(p));
    const Index info = cxxlapack::potrs<Index>('L', Index(p), Index(k), l.data(), Index(p),
                                               x.data(), Index(p));
    if (info != 0)
      throw NumericalError("LAPACK dpotrs failed (info = " + std::to_string(info) + ")");
    if (whitened)
      cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Left, cxxblas::Lower, cxxblas::Trans,
                           cxxblas::NonUnit, Index(p), Index(k), 1.0, s.data(), Index(p),
                           x.data(), Index(p));
    return x;
  }

 private:
  bool factor_inner(const Matrix& a) {
    const std::size_t p = a.shape(0);
    l = a;  // symmetric: row-major A read as column-major is A
    const double norm = cxxlapack_lansy_one(l);
    if (cxxlapack::potrf<Index>('L', Index(p), l.data(), Index(p)) != 0) return false;
    rcond = pocon_lower(l, norm);
    return true;
  }
};

// Phi^T (T - Phi x) - H x - G over all ranks' rows: the normal equations' residual taken from
// Phi itself, not from the formed Phi^T Phi (block order, then rank order, as above).
Matrix normal_residual(const DesignMatrix& design, const Matrix& t, const QuadraticPenalty& q,
                       const Matrix& x) {
  const std::size_t p = design.cols(), k = t.shape(1);
  struct Part {
    Matrix residual, product;
  };
  Matrix rho = xt::zeros<double>({p, k});
  std::exception_ptr failure;
  try {
    std::vector<Part> part(worker_count(design.rows(), design.block_rows(), design.threads()));
    design.reduce_blocks(
        [&](std::size_t w, std::size_t first, const Matrix& block) {
          const std::size_t rows = block.shape(0);
          Part& mine = part[w];
          if (mine.residual.shape(0) != rows || mine.residual.shape(1) != k)
            mine.residual = Matrix::from_shape({rows, k});
          if (mine.product.shape(0) != p || mine.product.shape(1) != k)
            mine.product = Matrix::from_shape({p, k});
          std::copy_n(t.data() + first * k, rows * k, mine.residual.data());
          cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans,
                               Index(rows), Index(k), Index(p), -1.0, block.data(), Index(p),
                               x.data(), Index(k), 1.0, mine.residual.data(), Index(k));
          cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(p),
                               Index(k), Index(rows), 1.0, block.data(), Index(p),
                               mine.residual.data(), Index(k), 0.0, mine.product.data(),
                               Index(k));
        },
        [&](std::size_t w, std::size_t) { rho += part[w].product; });
  } catch (...) {
    failure = std::current_exception();
  }
  std::vector<double> packed(rho.begin(), rho.end());
  sum_pass_over_ranks(packed, failure);
  std::copy(packed.begin(), packed.end(), rho.begin());
  if (q.active) {  // rho -= H x + g (one product: H is dense under the RKHS norm)
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(p),
                         Index(k), Index(p), -1.0, q.hessian.data(), Index(p), x.data(),
                         Index(k), 1.0, rho.data(), Index(k));
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) rho(i, c) -= q.gradient(i, 0);
  }
  return rho;
}

double max_abs(const Matrix& a) {
  double m = 0;
  for (const double v : a) m = std::max(m, std::abs(v));
  return m;
}

// sqrt(sum_c s_c^T A s_c / sum_c x_c^T A x_c): how much a step s moves the fitted values and
// the penalty, (Phi s)^T (Phi s) + s^T H s, against the solution x's.
double energy_ratio(const Matrix& a, const Matrix& s, const Matrix& x) {
  const std::size_t p = a.shape(0), k = s.shape(1);
  double step = 0, whole = 0;
  for (std::size_t c = 0; c < k; ++c)
    for (std::size_t i = 0; i < p; ++i) {
      double as = 0, ax = 0;
      for (std::size_t j = 0; j < p; ++j) {
        as += a(i, j) * s(j, c);
        ax += a(i, j) * x(j, c);
      }
      step += s(i, c) * as;
      whole += x(i, c) * ax;
    }
  return whole > 0 ? std::sqrt(std::max(step, 0.0) / whole) : 0.0;
}

// The normal equations refined (Bjorck's corrected semi-normal equations: "Stability analysis
// of the method of seminormal equations", 1987): x from the Cholesky factor of Phi^T Phi + H,
// then steps x += A^{-1} rho with rho = normal_residual(x) taken from Phi. Each step shrinks the
// error by about epsilon * cond(A), so for cond(Phi) below about epsilon^(-1/2) the result is
// as accurate as the SVD's, at the cost of dsyrk (N P^2) where dgelsd costs about 4 N P^2 and
// runs on one thread. Under a penalty whose A is too ill-conditioned for its own factor, A is
// factored whitened by the penalty (SymmetricFactor::factor_whitened). Returns nothing (the
// caller takes another solver) when A is not safely positive definite (the factor fails, or its
// estimated 1-norm condition exceeds refined_condition_limit, whitened too: rank deficient or
// too ill-conditioned to refine) or the steps stop shrinking first, unless the last step moved
// the weights by at most 1e-10 of the largest or the fitted values and penalty by at most 1e-8
// of theirs (energy_ratio): an RKHS penalty's system has directions that neither Phi nor K_MM
// sees, where the weights stay uncertain but nothing the network computes depends on them
// (waveform, 512 centres: the steps stall at 2e-9 of the weights and 8e-12 of the fitted
// values; iris at a width of 16 raw units, whitened: 1e-5 and 1.3e-9).
//
// The largest estimated 1-norm condition of A the refined solve takes. The 1-norm condition
// bounds the 2-norm one, and below 1 / epsilon (4.5e15) cond(Phi) is below epsilon^(-1/2), where
// the corrected semi-normal equations are as accurate as the SVD (Bjorck 1987); dpocon's
// estimate is within a few times of the truth, and a step that stops shrinking still falls
// back to the SVD. At the former 1e13 the defaults' fits went to the SVD, the largest part of
// the fit on small data: friedman1-3 (800 rows, 228 centres, estimated condition 1e13 to 1e14)
// 24-30 ms against 4-5 ms refined, the weights equal to 1e-9 of their size.
constexpr double refined_condition_limit = 1e15;

std::optional<LeastSquaresSolution> solve_refined(const DesignMatrix& design, const Matrix& t,
                                                  const QuadraticPenalty& given,
                                                  bool may_jitter, std::size_t& steps,
                                                  double& condition, bool& whitened,
                                                  bool& jittered) {
  QuadraticPenalty q = given;
  GramProducts ne = normal_equations(design, t, q);
  const std::size_t p = ne.gram.shape(0);
  SymmetricFactor a;
  const double least_rcond = 1.0 / refined_condition_limit;
  const bool direct = a.factor(ne.gram) && a.rcond > least_rcond;
  const auto by_penalty = [&] {
    return q.active && a.factor_whitened(ne.gram, q.hessian) && a.rcond > least_rcond;
  };
  jittered = false;
  if (!direct && !by_penalty()) {
    // Singular to rounding even whitened (a wide Gaussian's K_MM: pb_vowels at width scale
    // 32): the problem the selection scored, the penalty plus its metric's jitter, whose
    // whitened penalty is at least I / 2. The caller's SVD of [Phi; L^T] would solve the
    // exact penalty, at twice the cost on one thread (pb_vowels, 1,216 rows and 280 centres:
    // 38-43 ms against 17-18 ms with the factors that failed first; test error 0.1020 ->
    // 0.0954 on one fold, the same on the other). Only for `auto`: the jitter moves the fitted
    // values by about 1e-8 of theirs (kernel ridge regression on a singular K_NN: 3.6e-8), so
    // `refined-normal-equations`, named, keeps the exact penalty and leaves such a system to
    // the SVD.
    if (!q.active || !may_jitter) return std::nullopt;
    add_metric_jitter(q, ne.gram);
    if (!by_penalty()) return std::nullopt;
    jittered = true;
  }
  LeastSquaresSolution out;
  out.size = p;
  out.rank = p;
  out.rcond = 0;
  // Of Phi (estimated; whitened: in the penalty's metric): the system's is its square.
  condition = std::sqrt(1.0 / a.rcond);
  whitened = !direct;
  out.x = a.solve(ne.cross);
  // At least two steps, then converged once a step moves no weight by more than 2^-43 of the
  // largest. The first step's size is about epsilon cond(A) and rounds differently in one
  // process and on several ranks (sine, 3 ranks: 6e-13 against 8e-14 of the weights), so a bar
  // it could fall on either side of gave them different step counts; the second lands at the
  // rounding floor unless A is ill-conditioned: 1e-15 to 3e-14 of the weights (waveform,
  // 12 centres, weight decay 0.1: 2.0e-14 in one process, 2.4e-14 on 2 ranks), so the bar
  // stands a factor 4 above it. Stalled (after the second) when a step does not halve the last.
  constexpr double converged = 0x1p-43;
  constexpr std::size_t min_steps = 2, max_steps = 8;
  double last = std::numeric_limits<double>::infinity();
  for (steps = 0; steps < max_steps;) {
    const Matrix step = a.solve(normal_residual(design, t, q, out.x));
    const double size = max_abs(step), scale = max_abs(out.x);
    if (steps >= min_steps && size > 0.5 * last)
      return size <= 1e-10 * scale || energy_ratio(ne.gram, step, out.x) <= 1e-8
                 ? std::optional(out)
                 : std::nullopt;
    out.x += step;
    ++steps;
    if (steps >= min_steps && size <= converged * scale) return out;
    last = size;
  }
  return std::nullopt;
}

// The rows [R_Phi | R_T] of the triangular factor of this rank's [Phi_r | T_r] = Q_r R_r
// (Householder QR, LAPACK dgeqrf): min(n_r, p + k) rows of p + k values, row-major. Since Q_r is
// orthogonal, ||Phi_r w - T_r|| = ||R_Phi w - R_T|| over those rows.
std::vector<double> local_triangle(const Matrix& phi, const Matrix& t) {
  const std::size_t n = phi.shape(0), p = phi.shape(1), k = t.shape(1), w = p + k;
  const std::size_t r = std::min(n, w);
  std::vector<double> out(r * w, 0.0);
  if (r == 0) return out;
  xt::xtensor<double, 2, xt::layout_type::column_major> a = xt::zeros<double>({n, w});
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < p; ++j) a(i, j) = phi(i, j);
    for (std::size_t c = 0; c < k; ++c) a(i, p + c) = t(i, c);
  }
  xt::xtensor<double, 1> tau = xt::zeros<double>({r});
  const int info = xt::lapack::geqrf(a, tau);
  if (info != 0)
    throw NumericalError("LAPACK dgeqrf failed (info = " +
                         std::to_string(info) + ") on this rank's design matrix");
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = i; j < w; ++j) out[i * w + j] = a(i, j);
  return out;
}

// dgelsd on Phi itself; under a penalty on [Phi; L^T] w = [t; -L^+ g], H = L L^T from the
// eigendecomposition of H (the penalty's quadratic part as extra residuals).
//
// Sharded rows (more than one rank): the same minimiser from a tall-skinny QR. Each rank reduces
// its [Phi_r | T_r] to its triangle (local_triangle), the triangles are gathered in rank order
// (at most p + k rows per rank, the same bytes on every rank), and every rank solves the stacked
// triangles (and penalty rows) by dgelsd: [R_Phi; ...] has the singular values of Phi, so the
// solution, rank and condition are those of the one-process SVD up to rounding. rcond's default
// is the one-process one, epsilon * max(N + penalty rows, p) with N all ranks' rows.
// `phi` is this rank's rows of the design (materialised); solve_svd below materialises it.
LeastSquaresSolution solve_svd_rows(Matrix phi, const Matrix& t, const QuadraticPenalty& q,
                                    double rcond, std::size_t total_rows) {
  const std::size_t p = phi.shape(1), k = t.shape(1);
  Collectives& comm = collectives();
  Matrix targets;  // t, or the stacked triangles' right-hand sides
  std::vector<double> triangle;
  agreed([&] {
    if (comm.size() > 1) triangle = local_triangle(phi, t);
  });
  if (comm.size() > 1) {
    const std::string mine(reinterpret_cast<const char*>(triangle.data()),
                           triangle.size() * sizeof(double));
    const std::vector<std::string> all = comm.all_gather(mine);
    std::size_t rows = 0;
    for (const std::string& bytes : all) rows += bytes.size() / (sizeof(double) * (p + k));
    phi = Matrix::from_shape({rows, p});
    targets = Matrix::from_shape({rows, k});
    std::size_t row = 0;
    for (const std::string& bytes : all) {
      const std::size_t count = bytes.size() / (sizeof(double) * (p + k));
      std::vector<double> values(count * (p + k));
      std::memcpy(values.data(), bytes.data(), bytes.size());
      for (std::size_t i = 0; i < count; ++i, ++row) {
        for (std::size_t j = 0; j < p; ++j) phi(row, j) = values[i * (p + k) + j];
        for (std::size_t c = 0; c < k; ++c) targets(row, c) = values[i * (p + k) + p + c];
      }
    }
  }
  const Matrix& rhs = comm.size() > 1 ? targets : t;
  const std::size_t n = phi.shape(0);
  if (!q.active) {
    if (comm.size() > 1 && rcond < 0)
      rcond = std::numeric_limits<double>::epsilon() * double(std::max(total_rows, p));
    return solve_least_squares(phi, rhs, rcond);
  }

  xt::xtensor<double, 2, xt::layout_type::column_major> v = q.hessian;
  xt::xtensor<double, 1, xt::layout_type::column_major> lambda = xt::zeros<double>({p});
  if (xt::lapack::syevd(v, 'V', 'L', lambda) != 0)
    throw NumericalError("the eigendecomposition of the penalty's Hessian "
                         "did not converge");
  const double lambda_max = lambda(p - 1);
  const double cutoff = std::numeric_limits<double>::epsilon() * double(p) * lambda_max;
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < p; ++i)
    if (lambda(i) > cutoff && lambda(i) > 0) kept.push_back(i);

  Matrix a = xt::zeros<double>({n + kept.size(), p});
  Matrix b = xt::zeros<double>({n + kept.size(), k});
  std::copy(phi.begin(), phi.end(), a.begin());
  std::copy(rhs.begin(), rhs.end(), b.begin());
  for (std::size_t r = 0; r < kept.size(); ++r) {
    const std::size_t i = kept[r];
    const double root = std::sqrt(lambda(i));
    double vg = 0;  // v_i^T g
    for (std::size_t j = 0; j < p; ++j) {
      a(n + r, j) = root * v(j, i);
      vg += v(j, i) * q.gradient(j, 0);
    }
    for (std::size_t c = 0; c < k; ++c) b(n + r, c) = -vg / root;
  }
  if (comm.size() > 1 && rcond < 0)
    rcond = std::numeric_limits<double>::epsilon() *
            double(std::max(total_rows + kept.size(), p));
  return solve_least_squares(a, b, rcond);
}

LeastSquaresSolution solve_svd(const DesignMatrix& design, const Matrix& t,
                               const QuadraticPenalty& q, double rcond, std::size_t total_rows) {
  Matrix phi;
  agreed([&] { phi = design.materialise(); });
  return solve_svd_rows(std::move(phi), t, q, rcond, total_rows);
}

// The fit under the side conditions P_c^T w = 0 of the basis's polynomial term
// (Basis::polynomial, radial/numerics/side_conditions.hpp): in the variables theta = E u,
// E = diag(Z, I_q), the design is [Phi_rbf Z, P] (N x M) and the penalty's quadratic
// E^T H E, E^T g; solve_svd_rows solves it (on every rank alike), and w = Z u_rbf. With every
// training row a centre and the RKHS norm (alpha = lambda) this is SciPy RBFInterpolator's
// system (K + lambda I) w + P c = y, P^T w = 0; with fewer centres than rows it is least squares
// over {sum_j w_j phi_j + p : P_c^T w = 0}, the same function space as the interpolant's.
LeastSquaresSolution solve_side_conditions(const TrainingProblem& problem, const Matrix& t,
                                           const QuadraticPenalty& q, double rcond,
                                           std::size_t total_rows) {
  const std::size_t m = problem.centres.count(), p = problem.design.cols(), qn = p - m;
  // P_c: the last q columns (the monomials, then the bias) of the design at the centres.
  const DesignMatrix at_centres(problem.centres.means, problem.centres, problem.basis, false, 0);
  const Matrix design_c = at_centres.materialise();
  Matrix pc = Matrix::from_shape({m, qn});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < qn; ++j) pc(i, j) = design_c(i, m + j);
  const SideConditions conditions(pc, "plugin least-squares");
  const std::size_t free = m - qn;  // directions of the RBF weights left by the conditions

  Matrix a;
  agreed([&] {
    const Matrix phi = problem.design.materialise();
    const std::size_t n = phi.shape(0);
    Matrix rbf = Matrix::from_shape({n, m});
    for (std::size_t r = 0; r < n; ++r)
      std::copy_n(phi.data() + r * p, m, rbf.data() + r * m);
    conditions.right_multiply(rbf);  // [Phi_rbf Q1, Phi_rbf Z]
    a = Matrix::from_shape({n, m});
    for (std::size_t r = 0; r < n; ++r) {
      std::copy_n(rbf.data() + r * m + qn, free, a.data() + r * m);
      std::copy_n(phi.data() + r * p + m, qn, a.data() + r * m + free);
    }
  });

  QuadraticPenalty qe;
  qe.active = q.active;
  if (q.active) {
    // H = [H_rr H_rp; H_pr H_pp] (RBF rows first): E^T H E = [Z^T H_rr Z, Z^T H_rp; ., H_pp].
    Matrix hrr = Matrix::from_shape({m, m}), hpr = Matrix::from_shape({qn, m});
    Matrix g = Matrix::from_shape({1, m});
    for (std::size_t i = 0; i < m; ++i) {
      for (std::size_t j = 0; j < m; ++j) hrr(i, j) = q.hessian(i, j);
      g(0, i) = q.gradient(i, 0);
    }
    for (std::size_t i = 0; i < qn; ++i)
      for (std::size_t j = 0; j < m; ++j) hpr(i, j) = q.hessian(m + i, j);
    conditions.right_multiply(hrr);          // H_rr Q
    hrr = Matrix(xt::transpose(hrr));        // Q^T H_rr (H symmetric)
    conditions.right_multiply(hrr);          // Q^T H_rr Q
    conditions.right_multiply(hpr);          // H_pr Q
    conditions.right_multiply(g);            // g_r^T Q
    qe.hessian = xt::zeros<double>({m, m});
    qe.gradient = xt::zeros<double>({m, std::size_t(1)});
    for (std::size_t i = 0; i < free; ++i) {
      for (std::size_t j = 0; j < free; ++j) qe.hessian(i, j) = hrr(qn + i, qn + j);
      for (std::size_t j = 0; j < qn; ++j)
        qe.hessian(i, free + j) = qe.hessian(free + j, i) = hpr(j, qn + i);
      qe.gradient(i, 0) = g(0, qn + i);
    }
    for (std::size_t i = 0; i < qn; ++i) {
      for (std::size_t j = 0; j < qn; ++j) qe.hessian(free + i, free + j) = q.hessian(m + i, m + j);
      qe.gradient(free + i, 0) = q.gradient(m + i, 0);
    }
  }
  LeastSquaresSolution solution = solve_svd_rows(std::move(a), t, qe, rcond, total_rows);
  const std::size_t k = t.shape(1);
  Matrix u = Matrix::from_shape({free, k});
  std::copy_n(solution.x.data(), free * k, u.data());
  const Matrix w = conditions.expand(u);
  Matrix x = Matrix::from_shape({p, k});
  std::copy_n(w.data(), m * k, x.data());
  std::copy_n(solution.x.data() + free * k, qn * k, x.data() + m * k);
  solution.x = std::move(x);
  return solution;
}


// The most training outputs (rows x outputs, over all ranks) the sum of squares keeps for the
// trainer's metrics (OutputWeights::training_outputs): 256 MB of doubles, as the trainer's cache
// beyond the data.
constexpr std::size_t training_outputs_max = std::size_t(1) << 25;

// The sum of squared residuals ||Phi W - T||^2 in a pass of its own, from the residuals
// themselves (not from the normal equations, which would lose digits to cancellation): this
// rank's rows, then the sum over ranks. Phi W, the network's outputs on the training rows, into
// `outputs` when not null and at most training_outputs_max entries (else left empty).
double sum_of_squares(const DesignMatrix& design, const Matrix& t, const Matrix& weights,
                      Matrix* outputs = nullptr) {
  const std::size_t p = design.cols(), k = t.shape(1), n = design.rows();
  // (Decided on the rows of every rank, so that all keep theirs or none do.)
  const bool keep = outputs && count_over_ranks(n) * k <= training_outputs_max;
  if (keep) *outputs = Matrix::from_shape({n, k});
  double sse = 0;
  Matrix y;
  std::exception_ptr failure;
  try {
    design.for_each_block([&](std::size_t first, const Matrix& block) {
      const std::size_t rows = block.shape(0);
      if (y.shape(0) != rows || y.shape(1) != k) y = xt::empty<double>({rows, k});
      cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(rows),
                           Index(k), Index(p), 1.0, block.data(), Index(p), weights.data(),
                           Index(k), 0.0, y.data(), Index(k));
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t c = 0; c < k; ++c) {
          const double r = y(i, c) - t(first + i, c);
          sse += r * r;
        }
      if (keep) std::copy_n(y.data(), rows * k, outputs->data() + first * k);
    });
  } catch (...) {
    failure = std::current_exception();
  }
  std::vector<double> packed{sse};
  sum_pass_over_ranks(packed, failure);
  return packed[0];
}

// The penalty as ColumnQuadratic: H from the Hessian at 0 of one column (P x 1 weights), H W
// as the gradient at W less the gradient at 0 (the penalty is quadratic), g its gradient at 0.
ColumnQuadratic column_quadratic(const WeightPenalty* penalty, std::size_t p) {
  ColumnQuadratic q;
  if (penalty == nullptr) return q;
  q.gradient = xt::zeros<double>({p, std::size_t(1)});
  penalty->add_gradient(xt::zeros<double>({p, std::size_t(1)}), q.gradient);
  q.add_hessian = [penalty, p](Matrix& h) {
    penalty->add_hessian(xt::zeros<double>({p, std::size_t(1)}), h);
  };
  // H W = grad(W) - grad(0), grad(0) = g in every column (the same quadratic in each): one
  // gradient a product, not two (under the RKHS norm each is a sweep over K_MM).
  q.add_product = [penalty, p, g = q.gradient](const Matrix& w, Matrix& out) {
    const std::size_t k = w.shape(1);
    Matrix at_w = xt::zeros<double>({p, k});
    penalty->add_gradient(w, at_w);
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) out(i, c) += at_w(i, c) - g(i, 0);
  };
  return q;
}

// The design the cg path passes over: blocks of at most 4 MB and at least 64 rows (at most
// the design's; a power of two, so that they split its blocks and the ranks' 1024-row shards),
// so that the basis map, the copy and the products read each block from cache, not memory (at
// M = 3000, 1024-row blocks of 24 MB made a pass 2x slower), while the distances' GEMM still
// amortises packing the centres (16-row blocks at M = 10^4 spent 8% of a pass packing them); Phi kept in memory after the first
// pass when it fits in a quarter of the memory available and cg_cache_bytes (at N = 50,000 and
// M = 4,300, 1.7 GB, and later passes only read it).
std::unique_ptr<DesignMatrix> cg_design(const DesignMatrix& given, std::size_t cache_limit) {
  std::size_t rows = 64;
  while (rows * 2 <= given.block_rows() &&
         double(rows * 2) * double(given.cols()) * sizeof(double) <= double(4 << 20))
    rows *= 2;
  const std::uint64_t available = available_memory();
  const std::size_t cache = std::size_t(std::min<std::uint64_t>(
      cache_limit, available ? available / 4 : std::uint64_t(256) << 20));
  return given.reblocked(std::min(rows, given.block_rows()), cache);
}

// The preconditioner's sketch rows: a seeded sample of about M of the training rows over every
// rank (the same rows, gathered on every rank, for any number of ranks), without rows that
// have a missing input. (N / S) Phi_S^T Phi_S is an unbiased quadrature of Phi^T Phi for any
// centres; the design at the centres themselves, (N / M) K_MM^2, is FALKON's quadrature, good
// when the centres are a uniform sample of the rows but not for k-means centres, which follow
// the density less closely (SUSY-like, N = 10^6, M = 10^4, rkhs: 44 iterations with the
// centres' sketch, 14 with rows; FALKON's uniform centres: 11). The same cost: S M^2.
Matrix sketch_rows(const Matrix& x, std::size_t total_rows, std::size_t count,
                   std::uint64_t seed) {
  const std::vector<std::size_t> kept = sample_rows(total_rows, 0, total_rows, count, seed);
  Matrix rows;
  if (collectives().size() > 1) {
    rows = gather_rows(x, shard_layout(x.shape(0)), kept);
  } else {
    rows = Matrix::from_shape({kept.size(), x.shape(1)});
    for (std::size_t r = 0; r < kept.size(); ++r)
      std::copy_n(&x(kept[r], 0), x.shape(1), &rows(r, 0));
  }
  std::size_t whole = 0;
  for (std::size_t r = 0; r < rows.shape(0); ++r) {
    bool finite = true;
    for (std::size_t j = 0; j < rows.shape(1); ++j) finite = finite && std::isfinite(rows(r, j));
    if (!finite) continue;
    if (whole != r) std::copy_n(&rows(r, 0), rows.shape(1), &rows(whole, 0));
    ++whole;
  }
  if (whole < rows.shape(0)) {
    Matrix kept_rows = Matrix::from_shape({whole, rows.shape(1)});
    std::copy_n(rows.data(), whole * rows.shape(1), kept_rows.data());
    rows = std::move(kept_rows);
  }
  return rows;
}

// The preconditioner's quadrature points: the row sample (sketch_rows) and the centres, each
// at weight N / (S + M), i.e. the mean of the two quadratures (N/S) Phi_S^T Phi_S and (N/M)
// Phi_C^T Phi_C. Either alone fails somewhere: the centres' with k-means centres on SUSY-like
// data (44 iterations against 14 with rows), the rows' on shuttle's clusters, whose sparse
// regions a uniform sample misses where every k-means centre has its own column (108
// iterations against 23 with the centres).
Matrix sketch_points(const Matrix& rows, const Matrix& centres) {
  if (rows.shape(0) == 0) return centres;
  Matrix both = Matrix::from_shape({rows.shape(0) + centres.shape(0), rows.shape(1)});
  std::copy(rows.begin(), rows.end(), both.begin());
  std::copy(centres.begin(), centres.end(), both.begin() + std::ptrdiff_t(rows.size()));
  return both;
}

// The weights by conjugate gradient (radial/network/normal_cg.hpp), preconditioned by the
// design at a row sample of about M rows (sketch_rows) and at the centres (sketch_points).
NormalCgResult solve_cg(const TrainingProblem& problem, const DesignMatrix& design,
                        const Matrix& t, const WeightPenalty* penalty, double tolerance,
                        std::size_t max_iterations, std::size_t total_rows, std::uint64_t seed) {
  const Matrix rows =
      sketch_rows(problem.data.inputs, total_rows, problem.centres.count(), seed);
  const Matrix points = sketch_points(rows, problem.centres.means);  // the design reads it
  DesignMatrix sketch(points, problem.centres, problem.basis, false, 0);
  sketch.set_threads(design.threads());
  NormalCgOptions options;
  options.tolerance = tolerance;
  options.max_iterations = max_iterations;
  options.sketch_weight = double(total_rows) / double(sketch.rows());
  options.bias_last = true;  // Phi = [phi, 1]
  return solve_normal_cg(design, t, &sketch, column_quadratic(penalty, design.cols()), options);
}

}  // namespace

double LeastSquaresOutput::direct_cost(double n, double, double p, double k) {
  // dsyrk, Phi^T T, the Cholesky factor, two refinement passes
  return n * p * p + 2 * n * p * k + p * p * p / 3 + 2 * 4 * n * p * k;
}

double LeastSquaresOutput::iterative_cost(double n, double d, double p, double k) {
  // Iterations as the preconditioner from rows and centres takes them (7 to 16 on the
  // generator of issue 45, letter, shuttle and SUSY-like data; 10 puts the choice where the
  // measured times do: the generator at N = 10,000, M = 1,285, cg 0.26 s against the direct
  // 0.35 s; letter, K = 26, 2.32 s against 1.51 s); its sketch (S + M) M^2 + M^3/3; above
  // normal_rows_max_outputs outputs a pass is two GEMMs that pack each block. Below
  // min_iterative_columns the direct solve is kept: exact, and cheap there.
  if (p < min_iterative_columns) return std::numeric_limits<double>::infinity();
  constexpr double iterations = 10, exp_flops = 30;
  const double per_output = k <= double(normal_rows_max_outputs) ? 4 : 8;
  return iterations * n * p * (2 * d + exp_flops + per_output * k) + p * p * p * (2 + 1.0 / 3);
}

namespace {

// True when the SVD's working memory fits in half of what is available (always when unknown):
// Phi materialised, the penalty's rows stacked under it, dgelsd's copy and its P x P work.
bool svd_fits(std::size_t rows, std::size_t columns, std::size_t outputs) {
  const std::uint64_t available = available_memory();
  const double n = double(rows), p = double(columns), k = double(outputs);
  return available == 0 || 8.0 * (2.0 * (n + p) * p + 4.0 * p * p + 2.0 * (n + p) * k) <=
                                0.5 * double(available);
}

// True when the direct solvers' working memory exceeds what is available (never when unknown).
bool direct_exceeds_memory(const OutputLayer& layer, std::size_t rows, std::size_t centres,
                           std::size_t outputs) {
  const std::uint64_t available = available_memory();
  return available != 0 &&
         layer.OutputLayer::working_memory(rows, centres, outputs).bytes > double(available);
}

}  // namespace

WorkingMemory LeastSquaresOutput::cg_memory(std::size_t rows, std::size_t centres,
                                            std::size_t outputs) {
  // The preconditioner's P x P factor, the targets and residual-sized N x K copies, Phi when the
  // cg path caches it (cg_design), and the passes' per-thread blocks (4 MB each at most).
  const double p = double(centres) + 1.0, n = double(rows), k = double(outputs);
  const std::uint64_t available = available_memory();
  const double cache_limit = std::min<double>(
      double(cg_cache_bytes), available ? double(available) / 4 : double(256 << 20));
  const double phi = 8.0 * n * p;
  return {8.0 * (p * p + 3.0 * n * k) + (phi <= cache_limit ? phi : 0.0) + 8.0 * (4 << 20),
          "conjugate gradient: the (M + 1)^2 preconditioner" +
              std::string(phi <= cache_limit ? " and the design matrix kept between passes" : ""),
          ""};
}

WorkingMemory LeastSquaresOutput::working_memory(std::size_t rows, std::size_t centres,
                                                 std::size_t outputs) const {
  if (solver_ == Solver::Cg ||
      (solver_ == Solver::Auto && direct_exceeds_memory(*this, rows, centres, outputs)))
    return cg_memory(rows, centres, outputs);
  WorkingMemory direct = OutputLayer::working_memory(rows, centres, outputs);
  if (solver_ != Solver::Auto) direct.remedy = ", or output.solver = \"cg\"";
  return direct;
}

namespace {

// This rank's targets (1-of-K for classes); agreed, so that a rank whose rows disagree with its
// design stops every rank.
Matrix rank_targets(const TrainingProblem& problem) {
  Matrix t;
  agreed([&] {
    t = targets_for(Link::Identity, problem.data);
    if (t.shape(0) != problem.design.rows()) {
      std::ostringstream msg;
      msg << "the design matrix has " << problem.design.rows()
          << " rows but the data have " << t.shape(0);
      throw ShapeError(msg.str());
    }
  });
  return t;
}

}  // namespace

OutputWeights LeastSquaresOutput::fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                                      FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  const DesignMatrix& design = problem.design;
  const Matrix t = rank_targets(problem);
  const std::size_t p = design.cols(), k = t.shape(1);
  // Rows over all ranks (this rank's alone in one process).
  const ShardLayout layout = shard_layout(design.rows());
  const std::size_t n = layout.total;
  if (n == 0 || p == 0) throw InputError("the design matrix is empty");

  // One BLAS thread: a multi-threaded solve differs in the last bits with the thread count,
  // and the passes over Phi are already parallel over row blocks (DesignMatrix::set_threads).
  const SingleThreadedBlasScope blas;
  const double d = double(problem.centres.dim());
  // A polynomial term: the one solve under its side conditions (SVD), whatever `solver` says.
  const bool side = problem.basis.polynomial() != nullptr;
  // Auto: cg under a penalty when it costs less, and whenever the direct solvers' blocks do not
  // fit in memory (the rule reads the rows over all ranks, so every rank decides alike).
  const bool cg = !side && (solver_ == Solver::Cg ||
                  (solver_ == Solver::Auto &&
                   ((penalty != nullptr && iterative_cost(double(n), d, double(p), double(k)) <
                                               direct_cost(double(n), d, double(p), double(k))) ||
                    direct_exceeds_memory(*this, n, p - 1, k))));
  if (cg) return fit_iterative(problem, t, penalty, n, start, ctx);
  const QuadraticPenalty q = quadratic_penalty(penalty, p);
  // Auto under a penalty: the refined normal equations, unless the penalised system is too
  // ill-conditioned for them; then (and without a penalty) svd up to svd_limit entries.
  std::size_t refinements = 0;
  double refined_condition = 0;
  bool whitened = false, jittered = false;
  std::optional<LeastSquaresSolution> refined;
  if (!side &&
      (solver_ == Solver::RefinedNormalEquations || (solver_ == Solver::Auto && q.active)))
    refined = solve_refined(design, t, q, solver_ == Solver::Auto, refinements, refined_condition,
                            whitened, jittered);
  // A penalised system too ill-conditioned for the refined solve, even whitened (the RKHS norm
  // at a very wide Gaussian, where K_MM is nearly of low rank and S^{-1} turns the rounding of
  // Phi^T Phi into an indefinite matrix): the SVD of [Phi; L^T] at any size that fits in
  // memory. The normal equations' eigenvalues are Phi's squared, so they would drop directions
  // the selection's path kept (letter, 12,000 rows, 400 centres, width scale 128: rank 110 of
  // 401 and test error 0.2245, against the SVD's 401 and 0.1263).
  const bool refined_failed = !side && !refined && q.active &&
                              (solver_ == Solver::Auto ||
                               solver_ == Solver::RefinedNormalEquations);
  const bool svd = side || (!refined && (solver_ == Solver::Svd ||
                                         (solver_ != Solver::NormalEquations &&
                                          (n * p <= svd_limit ||
                                           (refined_failed && svd_fits(n, p, k))))));
  const LeastSquaresSolution solution =
      side    ? solve_side_conditions(problem, t, q, rcond_, n)
      : refined ? std::move(*refined)
      : svd   ? solve_svd(design, t, q, rcond_, n)
              : solve_normal_equations(design, t, q, rcond_);
  const char* method = side      ? "SVD under the polynomial term's side conditions"
                       : refined ? (jittered ? "refined normal equations, whitened by the "
                                               "penalty plus 1e-8 of its largest entry"
                                    : whitened ? "refined normal equations, whitened by the penalty"
                                               : "refined normal equations")
                       : svd     ? "SVD"
                                 : "normal equations";

  OutputWeights out;
  out.link = Link::Identity;
  out.weights = solution.x;

  const double sse = sum_of_squares(design, t, out.weights, &out.training_outputs);
  const double penalty_value = q.active ? penalty->penalty(out.weights) : 0.0;

  // Condition of Phi (or of the penalised system) over the singular values kept; the refined
  // solve's is the factor's 1-norm estimate.
  const auto& s = solution.singular_values;
  double condition = refined ? refined_condition : std::numeric_limits<double>::infinity();
  if (!refined && solution.rank > 0) {
    const double ratio = s(0) / s(solution.rank - 1);
    condition = svd ? ratio : std::sqrt(ratio);  // eigenvalues of Phi^T Phi are s^2
  }

  FitReport& report = ctx.report;
  report.iterations = 1;
  report.stop(Termination::Converged,
              std::string("solved in closed form (") + method +
                  (refined ? ", " + std::to_string(refinements) + " refinement steps" : "") +
                  ", rank " + std::to_string(solution.rank) + " of " +
                  std::to_string(solution.size) + ")");
  report.final_error = 0.5 * sse + penalty_value;
  report.figures["rank"] = double(solution.rank);
  report.figures["parameters"] = double(p);
  report.figures["svd"] = svd ? 1.0 : 0.0;
  report.figures["refinements"] = double(refinements);
  report.figures["metric_jitter"] = jittered ? metric_jitter : 0.0;
  report.figures["sse"] = sse;
  report.figures["penalty"] = penalty_value;
  report.figures["condition"] = condition;
  const double dn = double(n), dp = double(p), dk = double(k);
  report.flops = (svd ? 4.0 * dn * dp * dp + 8.0 * dp * dp * dp
                      : dn * dp * dp + 2.0 * dn * dp * dk + (refined ? dp / 3.0 : 9.0 * dp) * dp * dp) +
                 2.0 * dn * dp * dk + double(refinements) * 4.0 * dn * dp * dk;
  report.seconds = seconds_since(start);

  if (solution.rank < solution.size) {
    std::ostringstream msg;
    msg << "the " << (q.active ? "penalised " : "") << "least-squares system has rank "
        << solution.rank << " of " << solution.size
        << (side ? " (M free weights per output under the side conditions): "
                 : " (M+1 = " + std::to_string(p) + " weights per output): ");
    if (n < p && !q.active)
      msg << "more weights than the " << n << " training rows (e.g. every training point a "
          << "centre, where the bias is redundant)";
    else
      msg << "dependent design-matrix columns (duplicate centres, or widths far too large or "
             "small)";
    msg << "; the minimum-norm solution is used";
    ctx.warn("rank-deficient", msg.str(),
             "[weight-penalty] plugin = \"weight-decay\" with alpha > 0, or fewer centres "
             "(centres.count)");
  }
  return out;
}

OutputWeights LeastSquaresOutput::fit_iterative(const TrainingProblem& problem, const Matrix& t,
                                                const WeightPenalty* penalty,
                                                std::size_t total_rows,
                                                std::chrono::steady_clock::time_point start,
                                                FitContext& ctx) const {
  const std::unique_ptr<DesignMatrix> blocks = cg_design(problem.design, cg_cache_bytes);
  // The rule reads the rows over all ranks, so every rank and rank count decides alike.
  const bool single =
      precision_ == DesignPrecision::Single ||
      (precision_ == DesignPrecision::Auto &&
       double(total_rows) * double(blocks->cols()) * sizeof(double) > double(cg_cache_bytes));
  // Made again every pass: the products from float activations (fused) when the CPU can.
  if (single && blocks->use_single_precision() && precision_ == DesignPrecision::Auto)
    blocks->use_fused_normal_products();
  // Kept in memory: in floats when the passes read it from memory rather than cache, and the
  // row kernels take the outputs (more go through GEMMs of double blocks); then made in single
  // precision too, its ~1e-6 as far below the tolerance's effect (N = 50,000, M = 4,311: the
  // caching pass 0.43-0.46 s against 0.57-0.72 s, the same iterations and test error).
  const double double_bytes =
      double(total_rows) * double(blocks->cols()) * sizeof(double);
  if (!blocks->fused_normal_products() && t.shape(1) <= normal_rows_max_outputs &&
      (precision_ == DesignPrecision::Single ||
       (precision_ == DesignPrecision::Auto && double_bytes > double(single_storage_bytes))) &&
      blocks->use_single_storage() && precision_ == DesignPrecision::Auto)
    blocks->use_single_precision();
  const DesignMatrix& design = *blocks;
  const std::size_t p = design.cols(), k = t.shape(1);
  const NormalCgResult cg =
      solve_cg(problem, design, t, penalty, tolerance_, max_iterations_, total_rows, ctx.rng());
  OutputWeights out;
  out.link = Link::Identity;
  out.weights = cg.weights;
  // The sum of squares from the solve's products when Phi is not in memory (a pass of its own
  // costs as much as an iteration), else from the residuals themselves.
  double sse;
  // Every rank takes the same way (both are sums over all ranks).
  const bool cached = min_over_ranks(design.cached() ? 1.0 : 0.0) > 0.5;
  if (cached) {
    sse = sum_of_squares(design, t, out.weights, &out.training_outputs);
  } else {
    const ColumnQuadratic q = column_quadratic(penalty, p);
    Matrix hw = xt::zeros<double>({p, k});
    if (q.add_product) q.add_product(out.weights, hw);
    std::vector<double> squared{0.0};
    for (const double v : t) squared[0] += v * v;
    sum_pass_over_ranks(squared, nullptr);
    sse = cg_sum_of_squares(cg, hw, q.gradient, squared[0]);
  }
  const double penalty_value = penalty ? penalty->penalty(out.weights) : 0.0;

  FitReport& report = ctx.report;
  report.iterations = cg.iterations;
  report.figures["sse_from_normal_equations"] = cached ? 0.0 : 1.0;
  const std::string residual = text::number(cg.residuals.back(), 3);
  if (cg.converged)
    report.stop(Termination::Converged,
                "conjugate gradient: residual " + residual + " of the right-hand side after " +
                    std::to_string(cg.iterations) + " iterations (tolerance " +
                    text::number(tolerance_, 3) + ")");
  else
    report.stop(cg.iterations >= max_iterations_ ? Termination::IterationCap
                                                 : Termination::NoProgress,
                "conjugate gradient: residual " + residual + " of the right-hand side after " +
                    std::to_string(cg.iterations) + " iterations, above the tolerance " +
                    text::number(tolerance_, 3));
  report.final_error = 0.5 * sse + penalty_value;
  // One series entry per iteration: the largest relative residual over the outputs.
  report.series["cg_residual"] = cg.residuals;
  report.figures["cg_iterations"] = double(cg.iterations);
  report.figures["cg_jitter"] = cg.jitter;
  report.figures["cg_preconditioner_seconds"] = cg.preconditioner_seconds;
  report.figures["single_precision"] = design.single_precision() ? 1.0 : 0.0;
  report.figures["single_storage"] = design.single_storage() ? 1.0 : 0.0;
  report.figures["parameters"] = double(p);
  report.figures["sse"] = sse;
  report.figures["penalty"] = penalty_value;
  report.figures["solver_cg"] = 1.0;
  report.flops = cg.flops + 2.0 * double(total_rows) * double(p) * double(k);
  report.seconds = seconds_since(start);
  if (!cg.converged)
    ctx.warn("not-converged",
             "conjugate gradient stopped at residual " + residual + " of the right-hand side after " +
                 std::to_string(cg.iterations) + " iterations (tolerance " +
                 text::number(tolerance_, 3) + ")",
             "output.max_iterations, a larger weight penalty, or output.solver = "
             "\"refined-normal-equations\"");
  return out;
}

}  // namespace radial::plugins
