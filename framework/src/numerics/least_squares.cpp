// Least squares by LAPACK (through xtensor-blas' bundled wrappers): dgelsd for min ||Ax - B||,
// dsyevd for the pseudo-inverse of a symmetric PSD matrix, dpotrf/dpotrs for Cholesky.
// LAPACK wants column-major storage, so each routine works on a column-major copy.
#include "radial/numerics/least_squares.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/core/errors.hpp"

namespace radial {
namespace {

using ColMatrix = xt::xtensor<double, 2, xt::layout_type::column_major>;
using ColVector = xt::xtensor<double, 1, xt::layout_type::column_major>;

void check_finite(const Matrix& a, const char* what, const char* where) {
  for (std::size_t i = 0; i < a.shape(0); ++i)
    for (std::size_t j = 0; j < a.shape(1); ++j)
      if (!std::isfinite(a(i, j))) {
        std::ostringstream msg;
        msg << where << ": " << what << " has a non-finite entry " << a(i, j) << " at row " << i
            << ", column " << j;
        throw NumericalError(msg.str());
      }
}

// rcond is a relative cut-off: < 0 means the default, [0, 1) a fraction of the largest value;
// >= 1 (or NaN) would count every value as 0 and return zeros.
void check_rcond(double rcond, const char* where) {
  if (rcond < 1.0) return;
  std::ostringstream msg;
  msg << where << ": rcond = " << rcond
      << " would count every singular value or eigenvalue as 0; give rcond < 1, or < 0 for the "
         "default";
  throw ParameterError(msg.str());
}

void check_rhs(const Matrix& a, const Matrix& b, const char* where) {
  if (a.shape(0) != b.shape(0)) {
    std::ostringstream msg;
    msg << where << ": the matrix has " << a.shape(0) << " rows but the right-hand side has "
        << b.shape(0);
    throw ShapeError(msg.str());
  }
}

void check_square(const Matrix& s, const char* where) {
  if (s.shape(0) != s.shape(1) || s.shape(0) == 0) {
    std::ostringstream msg;
    msg << where << ": expected a non-empty square matrix, got " << s.shape(0) << " x "
        << s.shape(1);
    throw ShapeError(msg.str());
  }
}

}  // namespace

LeastSquaresSolution solve_least_squares(const Matrix& a, const Matrix& b, double rcond) {
  const char* where = "least squares (SVD)";
  check_rhs(a, b, where);
  const std::size_t m = a.shape(0), n = a.shape(1), k = b.shape(1);
  if (m == 0 || n == 0) {
    std::ostringstream msg;
    msg << where << ": the matrix is empty (" << m << " x " << n << ")";
    throw ShapeError(msg.str());
  }
  check_finite(a, "the matrix", where);
  check_finite(b, "the right-hand side", where);
  check_rcond(rcond, where);

  LeastSquaresSolution out;
  out.size = n;
  out.rcond = rcond < 0 ? std::numeric_limits<double>::epsilon() * double(std::max(m, n)) : rcond;
  out.x = xt::zeros<double>({n, k});
  if (k == 0) return out;

  ColMatrix ca = a;
  // dgelsd overwrites B (max(m, n) x k) with the n x k solution in its first rows.
  ColMatrix cb = xt::zeros<double>({std::max(m, n), k});
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t i = 0; i < m; ++i) cb(i, j) = b(i, j);
  ColVector s = xt::zeros<double>({std::min(m, n)});
  xt::blas_index_t rank = 0;
  const int info = xt::lapack::gelsd(ca, cb, s, rank, out.rcond);
  if (info != 0) {
    std::ostringstream msg;
    msg << where << ": LAPACK dgelsd failed (info = " << info
        << (info > 0 ? ", the SVD did not converge)" : ", an argument was invalid)");
    throw NumericalError(msg.str());
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < k; ++j) out.x(i, j) = cb(i, j);
  out.rank = std::size_t(rank);
  out.singular_values = xt::zeros<double>({s.size()});
  std::copy(s.begin(), s.end(), out.singular_values.begin());
  return out;
}

LeastSquaresSolution solve_symmetric_psd(const Matrix& s, const Matrix& b, double rcond) {
  const char* where = "symmetric PSD solve";
  check_square(s, where);
  check_rhs(s, b, where);
  check_finite(s, "the matrix", where);
  check_finite(b, "the right-hand side", where);
  check_rcond(rcond, where);
  const std::size_t n = s.shape(0), k = b.shape(1);

  // S = V diag(lambda) V^T; dsyevd reads the lower triangle and returns lambda ascending.
  ColMatrix v = s;
  ColVector lambda = xt::zeros<double>({n});
  const int info = xt::lapack::syevd(v, 'V', 'L', lambda);
  if (info != 0) {
    std::ostringstream msg;
    msg << where << ": LAPACK dsyevd failed (info = " << info
        << (info > 0 ? ", the eigensolver did not converge)" : ", an argument was invalid)");
    throw NumericalError(msg.str());
  }

  LeastSquaresSolution out;
  out.size = n;
  out.rcond = rcond < 0 ? std::numeric_limits<double>::epsilon() * double(n) : rcond;
  out.singular_values = xt::zeros<double>({n});
  for (std::size_t i = 0; i < n; ++i) out.singular_values(i) = lambda(n - 1 - i);
  const double lambda_max = std::max(0.0, lambda(n - 1));
  const double cutoff = out.rcond * lambda_max;

  // x = V diag(1/lambda_i for lambda_i > cutoff, else 0) V^T B: eigenvalues at or below the
  // cutoff (including those rounded negative) carry no information and are dropped.
  ColMatrix cb = b;
  ColMatrix projected = xt::zeros<double>({n, k});  // V^T B
  xt::blas::gemm(v, cb, projected, true, false);
  out.rank = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool kept = lambda_max > 0 && lambda(i) > cutoff;
    out.rank += kept ? 1 : 0;
    const double scale = kept ? 1.0 / lambda(i) : 0.0;
    for (std::size_t j = 0; j < k; ++j) projected(i, j) *= scale;
  }
  ColMatrix cx = xt::zeros<double>({n, k});
  xt::blas::gemm(v, projected, cx);
  out.x = cx;
  return out;
}

bool solve_cholesky(const Matrix& s, const Matrix& b, Matrix& x) {
  const char* where = "Cholesky solve";
  check_square(s, where);
  check_rhs(s, b, where);
  for (std::size_t i = 0; i < s.shape(0); ++i)
    for (std::size_t j = 0; j < s.shape(1); ++j)
      if (!std::isfinite(s(i, j))) return false;  // not a positive definite matrix
  const std::size_t n = s.shape(0), k = b.shape(1);
  ColMatrix factor = s;
  if (xt::lapack::potr(factor, 'L') != 0) return false;
  ColMatrix cb = b;
  if (k > 0) {
    const xt::blas_index_t info = cxxlapack::potrs<xt::blas_index_t>(
        'L', xt::blas_index_t(n), xt::blas_index_t(k), factor.data(), xt::blas_index_t(n),
        cb.data(), xt::blas_index_t(n));
    if (info != 0) {
      std::ostringstream msg;
      msg << where << ": LAPACK dpotrs failed (info = " << info << ")";
      throw NumericalError(msg.str());
    }
  }
  x = cb;
  return true;
}

void whiten_by_factor(double* a, const double* lower, std::size_t n) {
  using Index = xt::blas_index_t;
  cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Left, cxxblas::Lower, cxxblas::NoTrans,
                       cxxblas::NonUnit, Index(n), Index(n), 1.0, lower, Index(n), a, Index(n));
  cxxblas::trsm<Index>(cxxblas::ColMajor, cxxblas::Right, cxxblas::Lower, cxxblas::Trans,
                       cxxblas::NonUnit, Index(n), Index(n), 1.0, lower, Index(n), a, Index(n));
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = j + 1; i < n; ++i) {
      const double mean = 0.5 * (a[i + j * n] + a[j + i * n]);
      a[i + j * n] = a[j + i * n] = mean;
    }
}

}  // namespace radial
