// Preconditioned conjugate gradient on the regularised normal equations
// (radial/network/normal_cg.hpp).
#include "radial/network/normal_cg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>
#include <vector>

#include <xtensor/xmanipulation.hpp>
#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/cholesky.hpp"
#include "radial/numerics/normal_rows.hpp"
#include "radial/exec/heap_policy.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/numerics/small_gemm.hpp"

namespace radial {

namespace {

using Index = xt::blas_index_t;

// Sharded, a pass keeps one record (P x K values) per row block for the fold over ranks while
// this many bytes suffice (as the GLM passes' glm::fold_record_bytes), else it sums per-rank
// partials (equal to rounding).
constexpr std::size_t record_bytes = std::size_t(128) << 20;

// Ends a pass's reduction over the ranks: the per-block records folded in one process's order
// (`fold`), else this rank's `total` summed with the other ranks' in rank order.
void over_ranks(bool fold, const std::vector<double>& records, const std::exception_ptr& failure,
                Matrix& total) {
  if (fold) {
    const std::vector<double> sum = fold_blocks_over_ranks(records, total.size(), failure);
    std::copy(sum.begin(), sum.end(), total.begin());
  } else {
    std::vector<double> packed(total.begin(), total.end());
    sum_pass_over_ranks(packed, failure);
    std::copy(packed.begin(), packed.end(), total.begin());
  }
}

// Under several ranks, whether a pass keeps each block's `size` sums for over_ranks' fold in
// one process's order (when they fit in record_bytes); `records` sized for them if so.
bool fold_records(const DesignMatrix& design, std::size_t size, std::vector<double>& records) {
  const bool fold = collectives().size() > 1 &&
                    double(design.block_count()) * double(size) * sizeof(double) <=
                        double(record_bytes);
  if (fold) records.assign(design.block_count() * size, 0.0);
  return fold;
}

// product (p x k) = Phi_b^T U_b for a block (rows x p) and u (rows x k), k small: each row
// added once, u(r, c) phi_r into the c-th of k sums, in row order (the bits depend on the
// block alone). A GEMM with k <= 8 columns packs the whole block first: at M = 2 x 10^4 its
// dgemm_otcopy took 4x the time of its kernel.
void transposed_rows(const double* block, std::size_t rows, std::size_t p, const double* u,
                     std::size_t k, std::vector<double>& ut, Matrix& product) {
  ut.assign(k * p, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const double* phi = block + r * p;
    for (std::size_t c = 0; c < k; ++c) {
      const double a = u[r * k + c];
      if (a == 0) continue;
      double* sum = ut.data() + c * p;
      for (std::size_t j = 0; j < p; ++j) sum[j] += a * phi[j];
    }
  }
  for (std::size_t j = 0; j < p; ++j)
    for (std::size_t c = 0; c < k; ++c) product(j, c) = ut[c * p + j];
}

// Q = Phi^T U over every rank's rows, U_b = make_u(first, Phi_b) (rows x k) for each block.
// Blocks' products are formed alone and added in block order, then over the ranks.
Matrix transpose_products(
    const DesignMatrix& design, std::size_t k,
    const std::function<void(std::size_t, const Matrix&, Matrix&)>& make_u) {
  const std::size_t p = design.cols();
  Matrix total = xt::zeros<double>({p, k});
  std::vector<double> records;
  const bool fold = fold_records(design, p * k, records);
  std::exception_ptr failure;
  try {
    struct Part {
      Matrix u, product;
      std::vector<double> ut;  // k x p: transposed_rows' sums
    };
    std::vector<Part> part(worker_count(design.rows(), design.block_rows(), design.threads()));
    design.reduce_blocks(
        [&](std::size_t w, std::size_t first, const Matrix& block) {
          Part& mine = part[w];
          const std::size_t rows = block.shape(0);
          if (mine.u.shape(0) != rows || mine.u.shape(1) != k) mine.u = Matrix::from_shape({rows, k});
          if (mine.product.shape(0) != p || mine.product.shape(1) != k)
            mine.product = Matrix::from_shape({p, k});
          make_u(first, block, mine.u);
          if (k <= normal_rows_max_outputs)
            transposed_rows(block.data(), rows, p, mine.u.data(), k, mine.ut, mine.product);
          else
            cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(p),
                                 Index(k), Index(rows), 1.0, block.data(), Index(p),
                                 mine.u.data(), Index(k), 0.0, mine.product.data(), Index(k));
        },
        [&](std::size_t w, std::size_t first) {
          if (fold)
            std::copy(part[w].product.begin(), part[w].product.end(),
                      records.begin() + std::ptrdiff_t(first / design.block_rows() * p * k));
          else
            total += part[w].product;
        });
  } catch (...) {
    failure = std::current_exception();
  }
  over_ranks(fold, records, failure, total);
  return total;
}

// Phi^T (Phi X) over every rank's rows, fused row by row (k <= normal_rows_max_outputs):
// per-worker transposed products, combined as transpose_products does.
Matrix fused_normal_products(const DesignMatrix& design, const Matrix& x) {
  const std::size_t p = design.cols(), k = x.shape(1);
  Matrix xt = xt::transpose(x);  // k x p
  Matrix total = xt::zeros<double>({p, k});
  std::vector<double> records;
  const bool fold = fold_records(design, p * k, records);
  std::exception_ptr failure;
  try {
    std::vector<Matrix> part(worker_count(design.rows(), design.block_rows(), design.threads()),
                             Matrix(xt::zeros<double>({k, p})));
    const auto combine = [&](std::size_t w, std::size_t first) {
      Matrix& qt = part[w];
      if (fold) {
        double* to = records.data() + first / design.block_rows() * p * k;
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t c = 0; c < k; ++c) to[j * k + c] = qt(c, j);
      } else {
        for (std::size_t j = 0; j < p; ++j)
          for (std::size_t c = 0; c < k; ++c) total(j, c) += qt(c, j);
      }
      std::fill(qt.begin(), qt.end(), 0.0);
    };
    if (design.fused_normal_products())
      parallel_reduce_blocks(
          design.rows(), design.block_rows(), design.threads(),
          [&](std::size_t w, const RowBlock& b) {
            design.add_normal_products(b.first, b.count, xt.data(), k, part[w].data());
          },
          [&](std::size_t w, const RowBlock& b) { combine(w, b.first); });
    else
      design.reduce_blocks(
          [&](std::size_t w, std::size_t, const Matrix& block) {
            normal_rows(block.data(), block.shape(0), p, xt.data(), k, part[w].data());
          },
          combine);
  } catch (...) {
    failure = std::current_exception();
  }
  over_ranks(fold, records, failure, total);
  return total;
}

// Phi^T (Phi X) + H X.
Matrix apply_system(const DesignMatrix& design, const ColumnQuadratic& penalty, const Matrix& x) {
  const std::size_t p = design.cols(), k = x.shape(1);
  Matrix q = k <= normal_rows_max_outputs
                 ? fused_normal_products(design, x)
                 : transpose_products(design, k, [&](std::size_t, const Matrix& block, Matrix& u) {
                     cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans,
                                          Index(block.shape(0)), Index(k), Index(p), 1.0,
                                          block.data(), Index(p), x.data(), Index(k), 0.0,
                                          u.data(), Index(k));
                   });
  if (penalty.add_product) penalty.add_product(x, q);
  return q;
}

// The Cholesky factor of C (row-major storage read by LAPACK as column-major 'L').
struct Preconditioner {
  Matrix factor;  // P x P; empty: the identity
  double jitter = 0;

  // z = C^{-1} r, column by column.
  void apply(const Matrix& r, Matrix& z) const {
    z = r;
    if (factor.size() == 0) return;
    const std::size_t p = r.shape(0), k = r.shape(1);
    std::vector<double> column(p * k);  // column-major copy
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) column[c * p + i] = r(i, c);
    const Index info = cxxlapack::potrs<Index>('L', Index(p), Index(k), factor.data(), Index(p),
                                               column.data(), Index(p));
    if (info != 0)
      throw NumericalError("conjugate gradient: LAPACK dpotrs failed (info = " +
                           std::to_string(info) + ")");
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) z(i, c) = column[c * p + i];
  }
};

// C = weight Phi_S^T Phi_S + H, with one more sketch row [0 ... 0 1] when the bias is last.
Matrix preconditioner_sum(const DesignMatrix& sketch, const ColumnQuadratic& penalty,
                          double weight, bool bias_last) {
  Matrix gram = sketch_gram(sketch);
  const std::size_t p = gram.shape(0);
  gram *= weight;
  if (bias_last) gram(p - 1, p - 1) += weight;
  if (penalty.add_hessian) penalty.add_hessian(gram);
  return gram;
}

Preconditioner make_preconditioner(const DesignMatrix& sketch, const ColumnQuadratic& penalty,
                                   double weight, bool bias_last) {
  Preconditioner pre;
  Matrix gram = preconditioner_sum(sketch, penalty, weight, bias_last);
  const std::size_t p = gram.shape(0);
  double mean_diagonal = 0;
  for (std::size_t i = 0; i < p; ++i) mean_diagonal += gram(i, i);
  mean_diagonal /= double(std::max<std::size_t>(p, 1));
  if (!(mean_diagonal > 0) || !std::isfinite(mean_diagonal))
    throw NumericalError("conjugate gradient: the preconditioner's diagonal is not positive "
                         "(mean " + std::to_string(mean_diagonal) + ")");
  // The factorisation overwrites its input: keep the sum while retries may need it (P^2
  // doubles; at P = 10^4, 800 MB, so the retry recomputes the sketch instead above that).
  const bool keep_copy = p <= 4096;
  Matrix saved = keep_copy ? gram : Matrix();
  for (double relative = 1e-12; relative <= 1e-2; relative *= 100) {
    for (std::size_t i = 0; i < p; ++i) gram(i, i) += relative * mean_diagonal;
    if (cholesky_lower(gram.data(), p, sketch.threads()) == 0) {
      pre.factor = std::move(gram);
      pre.jitter = relative;
      return pre;
    }
    gram = keep_copy ? saved : preconditioner_sum(sketch, penalty, weight, bias_last);
  }
  throw NumericalError("conjugate gradient: the preconditioner (N/S) Phi_S^T Phi_S + H is not "
                       "positive definite even with 1e-2 of its mean diagonal added");
}

double column_norm(const Matrix& a, std::size_t c) {
  double s = 0;
  for (std::size_t i = 0; i < a.shape(0); ++i) s += a(i, c) * a(i, c);
  return std::sqrt(s);
}

double column_dot(const Matrix& a, const Matrix& b, std::size_t c) {
  double s = 0;
  for (std::size_t i = 0; i < a.shape(0); ++i) s += a(i, c) * b(i, c);
  return s;
}

}  // namespace

Matrix sketch_gram(const DesignMatrix& design) {
  const std::size_t p = design.cols(), s = design.rows();
  Matrix gram = advised_zeros(p, p);
  // The lower triangle in gram_parts bands of rows of equal work, c_i = p sqrt(i / parts):
  // band i adds Phi_b[:, c_i:c_i+1]^T Phi_b[:, 0:c_i] (a GEMM) and its diagonal block (a SYRK)
  // for each block of rows, the bands shared by the workers, blocks in order. The bands are
  // fixed, so the bits are the same for any thread count. 1024-wide panels of the same rows
  // (each panel's GEMM also made the upper half of its diagonal block) left one of two workers
  // idle for a tenth of the time: 3.3 s against these bands' 2.4-2.5 s (M = 4,311, S = 8,623,
  // AMD EPYC Zen 3, OpenBLAS 0.3.21 on one thread a worker).
  constexpr std::size_t gram_parts = 16;
  std::vector<std::size_t> edge(gram_parts + 1, p);
  for (std::size_t i = 0; i < gram_parts; ++i)
    edge[i] = std::min(p, std::size_t(std::lround(double(p) * std::sqrt(double(i) / gram_parts) /
                                                  8.0)) * 8);
  Matrix block;
  for (std::size_t first = 0; first < s; first += design.block_rows()) {
    const std::size_t rows = std::min(design.block_rows(), s - first);
    design.compute_block(first, rows, block);
    parallel_for_blocks(gram_parts, 1, design.threads(), [&](std::size_t, const RowBlock& b) {
      const std::size_t c0 = edge[b.index], width = edge[b.index + 1] - c0;
      if (width == 0) return;
      double* band = gram.data() + c0 * p;
      if (small_gemm_beats_blas()) {  // the band and its whole diagonal block at once (the
        // block's upper half is overwritten from the lower below)
        small_gemm(width, c0 + width, rows, block.data() + c0, 1, p, block.data(), p, band, p,
                   true);
        return;
      }
      if (c0 > 0)  // gram[c0:c1, 0:c0] += block[:, c0:c1]^T block[:, 0:c0] (row-major)
        cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(width),
                             Index(c0), Index(rows), 1.0, block.data() + c0, Index(p),
                             block.data(), Index(p), 1.0, band, Index(p));
      cxxblas::syrk<Index>(cxxblas::RowMajor, cxxblas::Lower, cxxblas::Trans, Index(width),
                           Index(rows), 1.0, block.data() + c0, Index(p), 1.0, band + c0,
                           Index(p));
    });
  }
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < i; ++j) gram(j, i) = gram(i, j);
  return gram;
}

NormalCgResult solve_normal_cg(const DesignMatrix& design, const Matrix& t,
                               const DesignMatrix* sketch, const ColumnQuadratic& penalty,
                               const NormalCgOptions& options) {
  const std::size_t p = design.cols(), k = t.shape(1);
  NormalCgResult out;
  if (options.precondition && (!sketch || sketch->cols() != p))
    throw Error("solve_normal_cg: the sketch design must have the design's columns");
  // b = Phi^T T - g (every column).
  Matrix b = transpose_products(design, k, [&](std::size_t first, const Matrix& block, Matrix& u) {
    std::copy_n(t.data() + first * k, block.shape(0) * k, u.data());
  });
  Preconditioner pre;
  if (options.precondition) {
    const auto start = std::chrono::steady_clock::now();
    pre = make_preconditioner(*sketch, penalty, options.sketch_weight, options.bias_last);
    out.jitter = pre.jitter;
    out.preconditioner_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.flops += double(sketch->rows()) * double(p) * double(p) + double(p) * p * p / 3.0;
  }
  if (penalty.gradient.size())
    for (std::size_t i = 0; i < p; ++i)
      for (std::size_t c = 0; c < k; ++c) b(i, c) -= penalty.gradient(i, 0);
  const double n = double(count_over_ranks(design.rows()));
  const double pass_flops = 4.0 * n * double(p) * double(k);
  out.flops += 2.0 * n * double(p) * double(k);

  Matrix x = xt::zeros<double>({p, k});
  Matrix r = b, z, q;
  pre.apply(r, z);
  Matrix dir = z;
  std::vector<double> b_norm(k), rz(k), relative(k, 0.0);
  std::vector<bool> active(k, true);
  for (std::size_t c = 0; c < k; ++c) {
    b_norm[c] = column_norm(b, c);
    rz[c] = column_dot(r, z, c);
    if (b_norm[c] > 0) relative[c] = 1.0;
    else active[c] = false;  // W = 0 solves it exactly
  }
  double worst = *std::max_element(relative.begin(), relative.end());
  out.residuals.push_back(worst);
  out.converged = worst <= options.tolerance;
  while (!out.converged && out.iterations < options.max_iterations) {
    q = apply_system(design, penalty, dir);
    out.flops += pass_flops + 2.0 * double(p) * double(p) * double(k);
    ++out.iterations;
    for (std::size_t c = 0; c < k; ++c) {
      if (!active[c]) continue;
      const double curvature = column_dot(dir, q, c);
      if (!(curvature > 0) || !std::isfinite(curvature)) {
        // Breakdown: the system is not positive definite along dir (H = 0 and dependent
        // columns) or the residual is already at rounding. Keep the iterate.
        active[c] = false;
        continue;
      }
      const double step = rz[c] / curvature;
      for (std::size_t i = 0; i < p; ++i) {
        x(i, c) += step * dir(i, c);
        r(i, c) -= step * q(i, c);
      }
      relative[c] = column_norm(r, c) / b_norm[c];
      if (relative[c] <= options.tolerance) active[c] = false;
    }
    worst = *std::max_element(relative.begin(), relative.end());
    out.residuals.push_back(worst);
    if (!std::isfinite(worst))
      throw NumericalError("conjugate gradient: the residual is not finite after " +
                           std::to_string(out.iterations) + " iterations");
    if (std::none_of(active.begin(), active.end(), [](bool a) { return a; })) {
      // A column stopped by a breakdown above the tolerance leaves converged false.
      out.converged = worst <= options.tolerance;
      break;
    }
    pre.apply(r, z);
    for (std::size_t c = 0; c < k; ++c) {
      if (!active[c]) continue;
      const double rz_new = column_dot(r, z, c);
      const double beta = rz_new / rz[c];
      rz[c] = rz_new;
      for (std::size_t i = 0; i < p; ++i) dir(i, c) = z(i, c) + beta * dir(i, c);
    }
  }
  out.weights = std::move(x);
  out.rhs = std::move(b);
  out.residual = std::move(r);
  return out;
}

double cg_sum_of_squares(const NormalCgResult& solve, const Matrix& hw, const Matrix& gradient,
                         double targets_squared) {
  const Matrix& w = solve.weights;
  const std::size_t p = w.shape(0), k = w.shape(1);
  double quadratic = 0, cross = 0;
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t c = 0; c < k; ++c) {
      const double g = gradient.size() ? gradient(i, 0) : 0.0;
      const double gram_w = solve.rhs(i, c) - solve.residual(i, c) - hw(i, c);  // Phi^T Phi w
      quadratic += w(i, c) * gram_w;
      cross += w(i, c) * (solve.rhs(i, c) + g);  // Phi^T t = b + g
    }
  return std::max(0.0, quadratic - 2.0 * cross + targets_squared);
}

}  // namespace radial
