// Stable solves of the Newton systems (see radial/glm/newton.hpp).
#include "radial/glm/newton.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <xtensor-blas/xlinalg.hpp>

#include "radial/core/errors.hpp"
#include "radial/glm/flops.hpp"

namespace radial::glm {

namespace {

double default_rcond(std::size_t n, double rcond) {
  return rcond > 0 ? rcond : double(std::max<std::size_t>(n, 1)) *
                                 std::numeric_limits<double>::epsilon();
}

bool finite(const Matrix& s) {
  for (double v : s)
    if (!std::isfinite(v)) return false;
  return true;
}

// Cholesky S = L L^T by the textbook loop (the systems are at most a few hundred wide); false
// when a pivot is not positive.
bool cholesky(const Matrix& s, Matrix& l) {
  const std::size_t n = s.shape(0);
  l = xt::zeros<double>({n, n});
  for (std::size_t j = 0; j < n; ++j) {
    double d = s(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    if (!(d > 0)) return false;
    const double ljj = std::sqrt(d);
    l(j, j) = ljj;
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = s(i, j);
      for (std::size_t k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
      l(i, j) = v / ljj;
    }
  }
  return true;
}

Vector cholesky_solve(const Matrix& l, const Vector& b) {
  const std::size_t n = l.shape(0);
  Vector y = b;
  for (std::size_t i = 0; i < n; ++i) {
    double v = y(i);
    for (std::size_t k = 0; k < i; ++k) v -= l(i, k) * y(k);
    y(i) = v / l(i, i);
  }
  for (std::size_t i = n; i-- > 0;) {
    double v = y(i);
    for (std::size_t k = i + 1; k < n; ++k) v -= l(k, i) * y(k);
    y(i) = v / l(i, i);
  }
  return y;
}

SymmetricSolve eigen_solve(const Matrix& s, const Vector& b, double rcond, double damping) {
  const std::size_t n = s.shape(0);
  SymmetricSolve out;
  out.size = n;
  out.x = xt::zeros<double>({n});
  out.flops = flops::symmetric_eigen(n) + flops::eigen_solve(n, 1);
  // LAPACK syevd through xtensor-blas; eigenvalues ascending, vectors in the columns.
  auto [lambda, vectors] = xt::linalg::eigh(s);
  double lmax = 0;
  for (std::size_t i = 0; i < n; ++i) lmax = std::max(lmax, std::fabs(lambda(i)));
  if (lmax == 0) return out;
  const double floor = rcond * lmax;
  double lmin_kept = lmax;
  for (std::size_t i = 0; i < n; ++i) {
    const bool kept = lambda(i) > floor;  // negative rounding noise is in the null space too
    if (kept) {
      ++out.rank;
      lmin_kept = std::min(lmin_kept, lambda(i));
    }
    if (!kept && damping <= 0) continue;
    const double used = damping > 0 ? std::max(lambda(i), damping * lmax) : lambda(i);
    double coef = 0;
    for (std::size_t r = 0; r < n; ++r) coef += vectors(r, i) * b(r);
    coef /= used;
    for (std::size_t r = 0; r < n; ++r) out.x(r) += coef * vectors(r, i);
  }
  out.condition = lmax / lmin_kept;
  return out;
}

}  // namespace

SymmetricSolve solve_symmetric(const Matrix& s, const Vector& b, SolveMethod method,
                               double rcond, double damping) {
  const std::size_t n = s.shape(0);
  if (s.shape(1) != n || b.size() != n)
    throw ShapeError("solve_symmetric: system is " + std::to_string(s.shape(0)) + " x " +
                     std::to_string(s.shape(1)) + " with " + std::to_string(b.size()) +
                     " right-hand sides entries");
  if (!finite(s))
    throw NumericalError("solve_symmetric: the system matrix has non-finite entries");
  rcond = default_rcond(n, rcond);
  if (method == SolveMethod::CholeskyFirst) {
    Matrix l;
    const double cost = flops::cholesky(n) + flops::cholesky_solve(n, 1);
    if (cholesky(s, l)) {
      double dmax = 0, dmin = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) {
        dmax = std::max(dmax, l(i, i));
        dmin = std::min(dmin, l(i, i));
      }
      const double condition = (dmax / dmin) * (dmax / dmin);
      // A factor this ill-conditioned gives steps dominated by rounding (or, with damping, by
      // directions of negligible curvature): use the eigen path.
      if (condition * std::max(rcond, damping) < 1) {
        SymmetricSolve out;
        out.x = cholesky_solve(l, b);
        out.rank = out.size = n;
        out.cholesky = true;
        out.condition = condition;
        out.flops = cost;
        return out;
      }
    }
    SymmetricSolve out = eigen_solve(s, b, rcond, damping);
    out.flops += cost;  // the attempt was paid for
    return out;
  }
  return eigen_solve(s, b, rcond, damping);
}

SymmetricSolve solve_block_diagonal(const Matrix& s, const Vector& b, std::size_t outputs,
                                    SolveMethod method, double rcond, double damping) {
  const std::size_t p = s.shape(0);
  if (outputs == 0 || p % outputs != 0)
    throw ShapeError("solve_block_diagonal: size " + std::to_string(p) +
                     " is not a multiple of the " + std::to_string(outputs) + " outputs");
  if (outputs == 1) return solve_symmetric(s, b, method, rcond, damping);
  const std::size_t c = p / outputs;
  SymmetricSolve out;
  out.size = p;
  out.x = xt::zeros<double>({p});
  out.cholesky = true;
  Matrix block = xt::zeros<double>({c, c});
  Vector rhs = xt::zeros<double>({c});
  for (std::size_t k = 0; k < outputs; ++k) {
    for (std::size_t i = 0; i < c; ++i) {
      rhs(i) = b(i * outputs + k);
      for (std::size_t j = 0; j < c; ++j) block(i, j) = s(i * outputs + k, j * outputs + k);
    }
    const SymmetricSolve part = solve_symmetric(block, rhs, method, rcond, damping);
    for (std::size_t i = 0; i < c; ++i) out.x(i * outputs + k) = part.x(i);
    out.rank += part.rank;
    out.cholesky = out.cholesky && part.cholesky;
    out.condition = std::max(out.condition, part.condition);
    out.flops += part.flops;
  }
  return out;
}

}  // namespace radial::glm
