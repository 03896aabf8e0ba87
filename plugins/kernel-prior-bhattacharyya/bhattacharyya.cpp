#include "bhattacharyya.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "radial/core/errors.hpp"

namespace radial::plugins {

double BhattacharyyaPrior::effective_alpha(const KernelPriorInput& kernels) const {
  if (units_ == Units::Absolute) return alpha_;
  return alpha_ * double(kernels.rows) / (double(kernels.classes()) * double(kernels.count()));
}

Matrix BhattacharyyaPrior::kernel_distances(const KernelPriorInput& kernels) const {
  Matrix beta = subkernel_mahalanobis(kernels);  // delta_jk, eq 30
  for (double& b : beta) b /= 8.0;               // eq 23 with Sigma_jk = Sigma_j
  return beta;
}

double BhattacharyyaPrior::kernel_penalty(const KernelPriorInput& kernels) const {
  const Matrix beta = kernel_distances(kernels);
  double sum = 0;  // sum_j delta_j, eq 16
  for (std::size_t j = 0; j < beta.shape(0); ++j)
    for (std::size_t k = 0; k < beta.shape(1); ++k)
      sum += kernels.class_given_kernel(j, k) * beta(j, k);
  return effective_alpha(kernels) * sum;  // -log p(theta), eq 17
}

void BhattacharyyaPrior::add_mean_terms(const KernelPriorInput& kernels,
                                        KernelMeanTerms& terms) const {
  // Eq 27: alpha/4 pseudo-observations at sum_k P(C_k|j) mu_jk.
  const double quarter = effective_alpha(kernels) / 4.0;
  const std::size_t m = kernels.count(), k = kernels.classes(), d = kernels.dim();
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < k; ++c) {
      const double w = quarter * kernels.class_given_kernel(j, c);
      if (w == 0) continue;
      terms.weight(j) += w;
      for (std::size_t a = 0; a < d; ++a) terms.target(j, a) += w * kernels.subkernel_means(j, c, a);
    }
}

void BhattacharyyaPrior::add_mixing_terms(const KernelPriorInput& kernels, Matrix& terms) const {
  // Eq 29: alpha/8 P(C_k|j) { sum_l P(C_l|j) delta_jl - delta_jk }, which sums to 0 over k (eq 31).
  const double eighth = effective_alpha(kernels) / 8.0;
  const Matrix delta = subkernel_mahalanobis(kernels);
  const std::size_t m = kernels.count(), k = kernels.classes();
  for (std::size_t j = 0; j < m; ++j) {
    double mean_delta = 0;
    for (std::size_t l = 0; l < k; ++l) mean_delta += kernels.class_given_kernel(j, l) * delta(j, l);
    for (std::size_t c = 0; c < k; ++c)
      terms(j, c) += eighth * kernels.class_given_kernel(j, c) * (mean_delta - delta(j, c));
  }
}

namespace {

// Lower Cholesky factor of a d x d SPD matrix (row-major) and its log-determinant.
double cholesky(const Matrix& s, std::vector<double>& l, const char* which) {
  const std::size_t d = s.shape(0);
  l.assign(d * d, 0.0);
  double log_det = 0;
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double v = s(a, b);
      for (std::size_t c = 0; c < b; ++c) v -= l[a * d + c] * l[b * d + c];
      if (a == b) {
        if (!(v > 0))
          throw NumericalError(std::string("bhattacharyya: ") + which +
                               " is not positive definite (pivot " + std::to_string(a) + ")");
        l[a * d + a] = std::sqrt(v);
        log_det += 2.0 * std::log(l[a * d + a]);
      } else {
        l[a * d + b] = v / l[b * d + b];
      }
    }
  return log_det;
}

}  // namespace

double bhattacharyya_distance(const Vector& mean1, const Matrix& cov1, const Vector& mean2,
                              const Matrix& cov2) {
  const std::size_t d = mean1.size();
  if (mean2.size() != d || cov1.shape(0) != d || cov1.shape(1) != d || cov2.shape(0) != d ||
      cov2.shape(1) != d)
    throw ShapeError("bhattacharyya_distance: means of length " + std::to_string(d) +
                     " need " + std::to_string(d) + " x " + std::to_string(d) + " covariances");
  Matrix average = Matrix::from_shape({d, d});
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b) average(a, b) = 0.5 * (cov1(a, b) + cov2(a, b));
  std::vector<double> l;
  const double log_det1 = cholesky(cov1, l, "the first covariance");
  const double log_det2 = cholesky(cov2, l, "the second covariance");
  const double log_det_average = cholesky(average, l, "the average covariance");
  std::vector<double> z(d);
  double q = 0;
  for (std::size_t a = 0; a < d; ++a) {  // L z = m1 - m2, q = ||z||^2
    double v = mean1(a) - mean2(a);
    for (std::size_t b = 0; b < a; ++b) v -= l[a * d + b] * z[b];
    z[a] = v / l[a * d + a];
    q += z[a] * z[a];
  }
  return q / 8.0 + 0.5 * (log_det_average - 0.5 * (log_det1 + log_det2));  // eq 23
}

}  // namespace radial::plugins
