// The RKHS norm alpha/2 sum_k w_k^T K_MM w_k (see rkhs_norm.hpp).
#include "rkhs_norm.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <iterator>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/numerics/side_conditions.hpp"

namespace radial::plugins {

namespace {
using Index = xt::blas_index_t;
}  // namespace

void RkhsNorm::pack(const Matrix& kernel) {
  m_ = kernel.shape(0);
  packed_.clear();
  packed_.reserve(m_ * (m_ + 1) / 2);
  advise_huge_pages(packed_.data(), packed_.capacity() * sizeof(double));
  packed_.resize(m_ * (m_ + 1) / 2);
  // Column j's lower part is row j's upper part (kernel is symmetric, entry for entry): read
  // along rows.
  std::size_t at = 0;
  for (std::size_t j = 0; j < m_; ++j) {
    std::copy_n(&kernel(j, j), m_ - j, packed_.data() + at);
    at += m_ - j;
  }
  prepared_ = true;
}

Matrix RkhsNorm::kernel() const {
  Matrix k = xt::zeros<double>({m_, m_});
  std::size_t at = 0;
  for (std::size_t j = 0; j < m_; ++j)
    for (std::size_t i = j; i < m_; ++i) k(i, j) = k(j, i) = packed_[at++];
  return k;
}

void RkhsNorm::prepare(const Centres& centres, const Basis& basis) {
  prepared_ = false;
  const std::size_t m = centres.count();
  if (m == 0) throw InputError("weight-penalty rkhs: there are no centres to take K_MM at");
  // Phi at the centres as rows, block by block: M x (M+1), the bias column last and dropped
  // (M x (M+q) with a polynomial term: its monomials, kept in pc, and the bias dropped). Never
  // the whole design beside K_MM: at M = 2 x 10^4 each is 3.2 GB.
  const DesignMatrix at_centres(centres.means, centres, basis, false, 0);
  rows_ = at_centres.cols();
  const std::size_t q = rows_ - m;
  Matrix kernel = Matrix::from_shape({m, m});  // 149 MB at M = 4,311: huge pages, few faults
  advise_huge_pages(kernel.data(), kernel.size() * sizeof(double));
  Matrix pc = Matrix::from_shape({m, basis.polynomial() ? q : 0});
  Matrix block;
  for (std::size_t first = 0; first < m; first += at_centres.block_rows()) {
    const std::size_t rows = std::min(at_centres.block_rows(), m - first);
    at_centres.compute_block(first, rows, block);
    for (std::size_t r = 0; r < rows; ++r) {
      std::copy_n(&block(r, 0), m, &kernel(first + r, 0));
      if (basis.polynomial()) std::copy_n(&block(r, m), q, &pc(first + r, 0));
    }
  }
  // Made symmetric (each pair's mean: the two products may round apart) in 64 x 64 tiles: a
  // row-by-row sweep read the columns of a 150 MB K_MM (M = 4,311) a cache line a value.
  double largest = 0;
  constexpr std::size_t tile = 64;
  for (std::size_t i0 = 0; i0 < m; i0 += tile) {
    const std::size_t i1 = std::min(m, i0 + tile);
    for (std::size_t j0 = i0; j0 < m; j0 += tile) {
      const std::size_t j1 = std::min(m, j0 + tile);
      for (std::size_t i = i0; i < i1; ++i)
        for (std::size_t j = std::max(j0, i + 1); j < j1; ++j) {
          const double mean = 0.5 * (kernel(i, j) + kernel(j, i));
          kernel(i, j) = kernel(j, i) = mean;
          largest = std::max(largest, std::fabs(mean));
        }
    }
    for (std::size_t i = i0; i < i1; ++i) largest = std::max(largest, std::fabs(kernel(i, i)));
  }
  // A Gaussian activation with one spherical width for every centre is a positive definite
  // kernel's Gram: no factorisation to check it (which would hold a second M x M).
  bool common_width = centres.shape == Shape::Spherical && centres.variances.size() == m;
  for (std::size_t i = 1; common_width && i < m; ++i)
    common_width = centres.variances(i) == centres.variances(0);
  if (basis.gaussian_activation() && !basis.polynomial() && common_width) {
    pack(kernel);
    return;
  }
  // Positive semi-definite up to rounding: rounding leaves eigenvalues of about
  // -M eps max|K| on a (numerically) singular Gaussian K_MM, far inside the jitter; an
  // indefinite kernel's negative eigenvalues are of the order of its entries.
  // With a polynomial term only weights under its side conditions P_c^T w = 0 are fitted
  // (OutputLayer::side_conditions), so K_MM need be definite on that subspace alone:
  // Z^T K_MM Z, Z from SideConditions (a conditionally positive definite basis of order <= the
  // degree + 1 passes, as in SciPy's smoothing).
  std::optional<SideConditions> conditions;
  Matrix factor = kernel;
  std::size_t size = m;
  if (basis.polynomial()) {
    conditions.emplace(pc, "weight-penalty rkhs");
    conditions->right_multiply(factor);        // K Q
    factor = Matrix(xt::transpose(factor));    // Q^T K
    conditions->right_multiply(factor);        // Q^T K Q
    size = m - q;
    Matrix projected = Matrix::from_shape({size, size});
    for (std::size_t i = 0; i < size; ++i)
      for (std::size_t j = 0; j < size; ++j) projected(i, j) = factor(q + i, q + j);
    factor = std::move(projected);
  }
  const double jitter = 1e-10 * largest;
  for (std::size_t i = 0; i < size; ++i) factor(i, i) += jitter;
  const Index info = largest > 0 && size > 0
                         ? cxxlapack::potrf<Index>('L', Index(size), factor.data(), Index(size))
                         : Index(0);
  if (info != 0 && conditions) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: the basis at the centres, K_MM(i, j) = phi_j(c_i), is not "
           "positive semi-definite under the side conditions of the polynomial term (degree "
        << basis.polynomial()->degree() << "; Cholesky of Z^T K_MM Z fails at column " << info
        << " of " << size
        << "), so w^T K_MM w is no seminorm there; the multiquadric sqrt(r^2 + c^2) is "
           "conditionally negative definite (SciPy's multiquadric is its negative), and a "
           "degree below the kernel's order - 1 leaves any kernel indefinite: raise "
           "basis.polynomial, or use weight-penalty weight-decay";
    throw InputError(msg.str());
  }
  if (info != 0) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: the basis at the centres, K_MM(i, j) = phi_j(c_i), is not "
           "positive semi-definite (its Cholesky factorisation with a jitter of 1e-10 max|K_MM| "
           "fails at column "
        << info << " of " << m
        << "), so w^T K_MM w is no norm and the penalty would reward some weights without "
           "bound; use a positive definite basis (gaussian, inverse-multiquadric; thin-plate, "
           "cubic, r4logr and multiquadric are only conditionally definite) with widths shared "
           "by the centres, or weight-penalty weight-decay";
    throw InputError(msg.str());
  }
  pack(kernel);
}

void RkhsNorm::check_weights(const Matrix& weights, const char* call) const {
  if (!prepared_)
    throw Error(std::string("weight-penalty rkhs: ") + call +
                " called before prepare(centres, basis): the penalty needs K_MM, the basis at "
                "the centres (the trainer prepares it before the output stage; code fitting "
                "output weights itself must call prepare first)");
  const std::size_t m = m_;
  if (weights.dimension() != 2 || weights.shape(0) != rows_) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: " << call << " got weights with " << weights.shape(0)
        << " rows, but the penalty was prepared on " << m << " centres ("
        << (rows_ == m + 1 ? "M + 1 = " : "M + q = ") << rows_ << " rows, the bias last)";
    throw ShapeError(msg.str());
  }
}

namespace {

// out (m x k, zeroed) += K W for K's lower triangle packed by columns: one sweep over the packed
// columns for all outputs at once: column j adds K(j..M-1, j) w_j to out(j..M-1) and
// K(j+1..M-1, j) . w(j+1..M-1) to out(j), the outputs innermost, where they are contiguous
// (row-major: w(i, c) = w[i K + c]), so the kernel is read once, not K times. Each out(i, c)
// sees the same sums in the same order as a sweep per output. With K fixed at compile time (up
// to 8 outputs) the output loops unroll and vectorise: shuttle, M = 4,089, K = 7, one product
// per cg iteration, 0.09 s with K at run time.
template <std::size_t K>
void packed_times(const double* column, std::size_t m, std::size_t k_runtime, const double* w,
                  double* y) {
  const std::size_t k = K ? K : k_runtime;
  std::vector<double> heap(K ? 0 : k);
  double local[K ? K : 1];  // a local array: the sums stay in registers
  double* dot = K ? local : heap.data();
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t below = m - j - 1;
    const double* wj = w + j * k;
    for (std::size_t c = 0; c < k; ++c) dot[c] = column[0] * wj[c];
    for (std::size_t i = 0; i < below; ++i) {
      const double a = column[1 + i];
      const double* wi = w + (j + 1 + i) * k;
      double* __restrict yi = y + (j + 1 + i) * k;
      for (std::size_t c = 0; c < k; ++c) {
        yi[c] += a * wj[c];
        dot[c] += a * wi[c];
      }
    }
    for (std::size_t c = 0; c < k; ++c) y[j * k + c] += dot[c];
    column += below + 1;
  }
}

}  // namespace

void RkhsNorm::kernel_times(const Matrix& weights, Matrix& out) const {
  const std::size_t m = m_, k = weights.shape(1);
  out = xt::zeros<double>({m, k});
  using Sweep = void (*)(const double*, std::size_t, std::size_t, const double*, double*);
  static constexpr Sweep fixed[] = {packed_times<0>, packed_times<1>, packed_times<2>,
                                    packed_times<3>, packed_times<4>, packed_times<5>,
                                    packed_times<6>, packed_times<7>, packed_times<8>};
  const Sweep sweep = k < std::size(fixed) ? fixed[k] : packed_times<0>;
  sweep(packed_.data(), m, k, weights.data(), out.data());
}

double RkhsNorm::penalty(const Matrix& weights) const {
  check_weights(weights, "penalty");
  const std::size_t m = m_, k = weights.shape(1);
  Matrix kw;
  kernel_times(weights, kw);
  double sum = 0;
  for (std::size_t p = 0; p < m * k; ++p) sum += weights.data()[p] * kw.data()[p];
  if (include_bias_)
    for (std::size_t c = 0; c < k; ++c) sum += weights(rows_ - 1, c) * weights(rows_ - 1, c);
  return 0.5 * alpha_ * sum;
}

void RkhsNorm::add_gradient(const Matrix& weights, Matrix& gradient) const {
  check_weights(weights, "add_gradient");
  if (gradient.shape(0) != weights.shape(0) || gradient.shape(1) != weights.shape(1)) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: the gradient is " << gradient.shape(0) << " x "
        << gradient.shape(1) << " but the weights are " << weights.shape(0) << " x "
        << weights.shape(1);
    throw ShapeError(msg.str());
  }
  const std::size_t m = m_, k = weights.shape(1);
  Matrix kw;
  kernel_times(weights, kw);
  for (std::size_t p = 0; p < m * k; ++p) gradient.data()[p] += alpha_ * kw.data()[p];
  if (include_bias_)
    for (std::size_t c = 0; c < k; ++c) gradient(rows_ - 1, c) += alpha_ * weights(rows_ - 1, c);
}

void RkhsNorm::add_hessian(const Matrix& weights, Matrix& hessian) const {
  check_weights(weights, "add_hessian");
  const std::size_t size = weights.size();
  if (hessian.shape(0) != size || hessian.shape(1) != size) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: the Hessian is " << hessian.shape(0) << " x "
        << hessian.shape(1) << " but the weights (" << weights.shape(0) << " x "
        << weights.shape(1) << ") need " << size << " x " << size;
    throw ShapeError(msg.str());
  }
  // Row-major flattening p = i*K + k: output k couples rows i and j through K(i, j) alone.
  const std::size_t m = m_, k = weights.shape(1);
  std::size_t at = 0;
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t i = j; i < m; ++i) {
      const double a = alpha_ * packed_[at++];
      for (std::size_t c = 0; c < k; ++c) {
        hessian(i * k + c, j * k + c) += a;
        if (i != j) hessian(j * k + c, i * k + c) += a;
      }
    }
  if (include_bias_)
    for (std::size_t c = 0; c < k; ++c) hessian((rows_ - 1) * k + c, (rows_ - 1) * k + c) += alpha_;
}

void RkhsNorm::add_hessian_product(const Matrix& weights, const Matrix& direction,
                                   Matrix& product) const {
  check_weights(weights, "add_hessian_product");
  if (direction.shape() != weights.shape() || product.shape() != weights.shape()) {
    std::ostringstream msg;
    msg << "weight-penalty rkhs: a Hessian-vector product needs a direction and a product of "
           "the weights' shape, "
        << weights.shape(0) << " x " << weights.shape(1);
    throw ShapeError(msg.str());
  }
  // The penalty is quadratic: its Hessian applied to V is its gradient at V.
  add_gradient(direction, product);
}

}  // namespace radial::plugins
