// The kernel-prior value types and the helpers every kernel prior shares.
#include "radial/network/kernel_prior.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw ShapeError("kernel prior input: " + what);
}

}  // namespace

void KernelPriorInput::check() const {
  kernels.check();
  if (kernels.shape != Shape::Diagonal && kernels.shape != Shape::Full)
    fail(std::string("the kernels need a diagonal or full covariance, found shape '") +
         to_string(kernels.shape) + "'");
  const std::size_t m = kernels.count(), d = kernels.dim();
  if (class_given_kernel.dimension() != 2 || class_given_kernel.shape(0) != m ||
      class_given_kernel.shape(1) == 0)
    fail("class_given_kernel must be M x K with M = " + std::to_string(m) + " and K >= 1");
  const std::size_t k = class_given_kernel.shape(1);
  if (subkernel_means.dimension() != 3 || subkernel_means.shape(0) != m ||
      subkernel_means.shape(1) != k || subkernel_means.shape(2) != d)
    fail("subkernel_means must be M x K x d = " + std::to_string(m) + " x " + std::to_string(k) +
         " x " + std::to_string(d));
  for (std::size_t j = 0; j < m; ++j) {
    double sum = 0;
    for (std::size_t c = 0; c < k; ++c) {
      const double p = class_given_kernel(j, c);
      if (!(p >= 0 && p <= 1 + 1e-12))
        fail("P(C_" + std::to_string(c) + "|" + std::to_string(j) + ") = " + text::number(p, 9) +
             " is not a probability");
      sum += p;
      if (p > 0)
        for (std::size_t a = 0; a < d; ++a)
          if (!std::isfinite(subkernel_means(j, c, a)))
            fail("subkernel mean (" + std::to_string(j) + ", " + std::to_string(c) +
                 ") is not finite in dimension " + std::to_string(a));
    }
    if (std::fabs(sum - 1) > 1e-6 && sum != 0)
      fail("P(C_k|" + std::to_string(j) + ") sums to " + text::number(sum, 9) +
           " over k, not 1 (or 0)");
  }
}

KernelMeanTerms KernelMeanTerms::zeros(std::size_t count, std::size_t dim) {
  KernelMeanTerms terms;
  terms.weight = Vector::from_shape({count});
  terms.weight.fill(0.0);
  terms.target = Matrix::from_shape({count, dim});
  terms.target.fill(0.0);
  return terms;
}

Matrix class_given_kernel(const Matrix& mixing, const Vector& class_priors) {
  if (mixing.dimension() != 2 || mixing.shape(1) != class_priors.size())
    throw ShapeError("class_given_kernel: mixing must be M x K with K = " +
                     std::to_string(class_priors.size()) + " class priors");
  const std::size_t m = mixing.shape(0), k = mixing.shape(1);
  Matrix out = Matrix::from_shape({m, k});
  for (std::size_t j = 0; j < m; ++j) {
    double total = 0;
    for (std::size_t c = 0; c < k; ++c) total += mixing(j, c) * class_priors(c);
    for (std::size_t c = 0; c < k; ++c)
      out(j, c) = total > 0 ? mixing(j, c) * class_priors(c) / total : 0.0;  // eq 15
  }
  return out;
}

Matrix subkernel_mahalanobis(const KernelPriorInput& input) {
  const std::size_t m = input.count(), k = input.classes(), d = input.dim();
  const Centres& kernels = input.kernels;
  Matrix delta = Matrix::from_shape({m, k});
  delta.fill(0.0);
  std::vector<double> chol(d * d), diff(d);
  for (std::size_t j = 0; j < m; ++j) {
    if (kernels.shape == Shape::Full) {
      // Cholesky Sigma_j = L L^T (lower, row-major), then ||L^{-1}(mu_j - mu_jk)||^2.
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b <= a; ++b) {
          double s = kernels.covariances(j, a, b);
          for (std::size_t c = 0; c < b; ++c) s -= chol[a * d + c] * chol[b * d + c];
          if (a == b) {
            if (!(s > 0))
              throw NumericalError("kernel prior: the covariance of kernel " + std::to_string(j) +
                                   " is not positive definite (pivot " + std::to_string(a) + " = " +
                                   text::number(s, 9) + "); raise the learner's variance floor");
            chol[a * d + a] = std::sqrt(s);
          } else {
            chol[a * d + b] = s / chol[b * d + b];
          }
        }
    }
    for (std::size_t c = 0; c < k; ++c) {
      if (!(input.class_given_kernel(j, c) > 0)) continue;
      for (std::size_t a = 0; a < d; ++a)
        diff[a] = kernels.means(j, a) - input.subkernel_means(j, c, a);
      double q = 0;
      if (kernels.shape == Shape::Full) {
        for (std::size_t a = 0; a < d; ++a) {  // forward substitution L z = diff
          double s = diff[a];
          for (std::size_t b = 0; b < a; ++b) s -= chol[a * d + b] * diff[b];
          diff[a] = s / chol[a * d + a];
          q += diff[a] * diff[a];
        }
      } else {
        for (std::size_t a = 0; a < d; ++a) q += diff[a] * diff[a] / kernels.diagonal(j, a);
      }
      delta(j, c) = q;  // eq 30
    }
  }
  return delta;
}

}  // namespace radial
