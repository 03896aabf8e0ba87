// Newton-CG for IRLS (see irls_newton_cg.hpp).
#include "irls_newton_cg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <xtensor-blas/xblas.hpp>
#include <xtensor-blas/xlapack.hpp>

#include "radial/core/errors.hpp"
#include "radial/glm/vectors.hpp"
#include "radial/network/link.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::plugins::irls_cg {

namespace {

using Index = xt::blas_index_t;

// The Cholesky factor of `a` (C x C, row-major read as column-major 'L') with the smallest
// jitter 1e-12 ... 1e-2 of its mean diagonal that factorises; false when none does.
bool factor_with_jitter(Matrix& a, double& jitter) {
  const std::size_t c = a.shape(0);
  double mean_diagonal = 0;
  for (std::size_t i = 0; i < c; ++i) mean_diagonal += a(i, i);
  mean_diagonal /= double(std::max<std::size_t>(c, 1));
  if (!(mean_diagonal > 0) || !std::isfinite(mean_diagonal)) return false;
  const Matrix saved = a;
  for (double relative = 1e-12; relative <= 1e-2; relative *= 100) {
    for (std::size_t i = 0; i < c; ++i) a(i, i) += relative * mean_diagonal;
    if (cxxlapack::potrf<Index>('L', Index(c), a.data(), Index(c)) == 0) {
      jitter = std::max(jitter, relative);
      return true;
    }
    a = saved;
  }
  return false;
}

}  // namespace

// z = P^{-1} r (C x K), output by output.
void Preconditioner::apply(const Matrix& r, Matrix& z) const {
  z = r;
  const std::size_t c = r.shape(0), k = r.shape(1);
  apply_blocks(r, z);
  if (null_rows.empty()) return;
  for (std::size_t i = 0; i < c; ++i) {
    if (!null_rows[i]) continue;
    double mean = 0;
    for (std::size_t out = 0; out < k; ++out) mean += z(i, out);
    mean /= double(k);
    for (std::size_t out = 0; out < k; ++out) z(i, out) -= mean;
  }
}

void Preconditioner::apply_blocks(const Matrix& r, Matrix& z) const {
  if (factors.empty()) return;
  const std::size_t c = r.shape(0), k = r.shape(1);
  std::vector<double> column(c);
  for (std::size_t out = 0; out < k; ++out) {
    for (std::size_t i = 0; i < c; ++i) column[i] = r(i, out);
    const Index info = cxxlapack::potrs<Index>('L', Index(c), Index(1), factors[out].data(),
                                               Index(c), column.data(), Index(c));
    if (info != 0)
      throw NumericalError("LAPACK dpotrs failed on the CG preconditioner (info = " +
                           std::to_string(info) + ")");
    for (std::size_t i = 0; i < c; ++i) z(i, out) = column[i];
  }
  if (coarse.size() == 0) return;
  // + E (E^T H E)^{-1} E^T r with E = 1_K x I_C / sqrt(K): (1/K) A_c^{-1} sum_k r_k added
  // to every output.
  for (std::size_t i = 0; i < c; ++i) {
    double sum = 0;
    for (std::size_t out = 0; out < k; ++out) sum += r(i, out);
    column[i] = skipped[i] ? 0.0 : sum / double(k);
  }
  const Index info = cxxlapack::potrs<Index>('L', Index(c), Index(1), coarse.data(),
                                             Index(c), column.data(), Index(c));
  if (info != 0)
    throw NumericalError("LAPACK dpotrs failed on the CG coarse operator (info = " +
                         std::to_string(info) + ")");
  for (std::size_t i = 0; i < c; ++i)
    if (!skipped[i])
      for (std::size_t out = 0; out < k; ++out) z(i, out) += column[i];
}

std::vector<bool> softmax_null_rows(const glm::Objective& objective, const Matrix& w,
                                    bool exact_softmax) {
  if (!exact_softmax) return {};
  const std::size_t c = objective.cols();
  const WeightPenalty* penalty = objective.weight_penalty();
  if (!penalty) return std::vector<bool>(c, true);
  Matrix column = xt::zeros<double>({c, std::size_t(1)});
  for (std::size_t i = 0; i < c; ++i) column(i, 0) = w(i, 0);
  Matrix h = xt::zeros<double>({c, c});
  penalty->add_hessian(column, h);
  double largest = 0;
  for (std::size_t i = 0; i < c; ++i) largest = std::max(largest, h(i, i));
  std::vector<bool> rows(c);
  for (std::size_t i = 0; i < c; ++i) rows[i] = !(h(i, i) > 1e-14 * largest);
  return rows;
}

Preconditioner sketch_preconditioner(const glm::Objective& objective, const Matrix& phi_s,
                                     const Matrix& w, bool exact_softmax) {
  Preconditioner pre;
  const std::size_t s = phi_s.shape(0), c = objective.cols(), k = objective.outputs();
  const double weight = double(objective.total_rows()) / double(std::max<std::size_t>(s, 1));
  Matrix y = xt::empty<double>({s, k});
  cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::NoTrans, Index(s),
                       Index(k), Index(c), 1.0, phi_s.data(), Index(c), w.data(), Index(k), 0.0,
                       y.data(), Index(k));
  apply_link(objective.link(), y);
  Matrix scaled = xt::empty<double>({s, c});
  const WeightPenalty* penalty = objective.weight_penalty();
  for (std::size_t out = 0; out < k; ++out) {
    for (std::size_t n = 0; n < s; ++n) {
      const double v = objective.link() == Link::Identity ? 1.0 : y(n, out) * (1.0 - y(n, out));
      const double root = std::sqrt(std::max(v, 0.0));
      for (std::size_t j = 0; j < c; ++j) scaled(n, j) = root * phi_s(n, j);
    }
    Matrix gram = xt::zeros<double>({c, c});
    cxxblas::gemm<Index>(cxxblas::RowMajor, cxxblas::Trans, cxxblas::NoTrans, Index(c),
                         Index(c), Index(s), weight, scaled.data(), Index(c), scaled.data(),
                         Index(c), 0.0, gram.data(), Index(c));
    pre.flops += 2.0 * double(s) * double(c) * double(c);
    if (penalty) {
      // The penalty's Hessian of column k alone (exact for penalties that treat the columns
      // alike and separately: weight decay, rkhs).
      Matrix column = xt::empty<double>({c, std::size_t(1)});
      for (std::size_t i = 0; i < c; ++i) column(i, 0) = w(i, out);
      penalty->add_hessian(column, gram);
    }
    if (!factor_with_jitter(gram, pre.jitter)) {
      // Curvature nearly 0 at every sketch row and no penalty: the identity for this output.
      gram = xt::eye<double>(c);
      pre.jitter = std::max(pre.jitter, 1.0);
    }
    pre.flops += double(c) * double(c) * double(c) / 3;
    pre.factors.push_back(std::move(gram));
  }
  pre.null_rows = softmax_null_rows(objective, w, exact_softmax);
  if (exact_softmax && penalty) {
    // The exact softmax Hessian has no data curvature along E = 1_K x I_C (one vector added
    // to every output's weights leaves Y unchanged, eq. 13 rows summing to 0): there
    // E^T H E = H_pen of one column, which the blocks above overstate by their data curvature.
    // A coarse correction on those directions (additive two-level preconditioner) gives them
    // the penalty's curvature instead. Without a penalty they are H's null space: none.
    Matrix coarse = xt::zeros<double>({c, c});
    Matrix column = xt::empty<double>({c, std::size_t(1)});
    for (std::size_t i = 0; i < c; ++i) {
      double sum = 0;
      for (std::size_t out = 0; out < k; ++out) sum += w(i, out);
      column(i, 0) = sum / double(k);
    }
    penalty->add_hessian(column, coarse);
    double largest = 0;
    for (std::size_t i = 0; i < c; ++i) largest = std::max(largest, coarse(i, i));
    std::vector<bool> skipped(c, false);
    for (std::size_t i = 0; i < c; ++i)
      if (!(coarse(i, i) > 1e-14 * largest)) {  // PSD: its row and column are 0 too
        skipped[i] = true;
        for (std::size_t j = 0; j < c; ++j) coarse(i, j) = coarse(j, i) = 0.0;
        coarse(i, i) = 1.0;
      }
    double jitter = 0;
    if (largest > 0 && factor_with_jitter(coarse, jitter)) {
      // Kept when well conditioned: a near-singular penalty would amplify rounding along H's
      // null space without helping CG.
      double lo = std::numeric_limits<double>::infinity(), hi = 0;
      for (std::size_t i = 0; i < c; ++i)
        if (!skipped[i]) lo = std::min(lo, coarse(i, i)), hi = std::max(hi, coarse(i, i));
      if (hi / lo < 1e6) {
        pre.coarse = std::move(coarse);
        pre.skipped = std::move(skipped);
        pre.jitter = std::max(pre.jitter, jitter);
      }
    }
    pre.flops += double(c) * double(c) * double(c) / 3;
  }
  return pre;
}

CgStep newton_cg(glm::Objective& objective, const Matrix& w, const Matrix& g,
                 glm::HessianKind kind, const Preconditioner& pre, double eta, double floor,
                 std::size_t cap) {
  const std::size_t c = objective.cols(), k = objective.outputs(), p = objective.size();
  CgStep step;
  step.d = xt::zeros<double>({c, k});
  Matrix r = -g, z, q;
  pre.apply(r, z);
  Matrix dir = z;
  double rz = glm::dot(r, z);
  const double target = std::max(eta * std::sqrt(glm::dot(g, g)), floor);
  objective.add_flops(4.0 * double(p));
  if (std::sqrt(glm::dot(r, r)) <= target) {
    step.converged = true;
    return step;
  }
  while (step.iterations < cap) {
    objective.hessian_product(w, kind, dir, q);
    ++step.iterations;
    const double curvature = glm::dot(dir, q);
    if (!(curvature > 0)) {
      // Zero or negative curvature along dir (a singular Hessian: the exact softmax without a
      // penalty): stop with the iterate so far, or the preconditioned gradient on the first.
      if (step.iterations == 1) step.d = dir;
      step.curvature_stop = true;
      break;
    }
    const double alpha = rz / curvature;
    step.d = glm::axpy(alpha, dir, step.d);
    r = glm::axpy(-alpha, q, r);
    if (std::sqrt(glm::dot(r, r)) <= target) {
      step.converged = true;
      break;
    }
    pre.apply(r, z);
    const double rz_next = glm::dot(r, z);
    const double beta = rz_next / rz;
    rz = rz_next;
    dir = glm::axpy(beta, dir, z);
    // Three dots, three axpys, the preconditioner's two triangular solves per output.
    objective.add_flops(12.0 * double(p) + 2.0 * double(p) * double(c));
  }
  return step;
}

}  // namespace radial::plugins::irls_cg
