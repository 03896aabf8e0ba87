#pragma once
// The conformance checks of a KernelPrior plugin (radial/sdk/conformance.hpp).

#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

inline void check_kernel_prior(const Registry& registry, const ComponentInfo& info,
                               const Params& params, const Options& options, Runner& runner) {
  // M = 3 diagonal kernels in d = 2, K = 2 classes; kernel 2 has no class-1 part.
  const std::size_t m = 3, k = 2, d = 2;
  KernelPriorInput in;
  in.rows = 60;
  in.kernels.shape = Shape::Diagonal;
  in.kernels.means = Matrix::from_shape({m, d});
  in.kernels.diagonal = Matrix::from_shape({m, d});
  in.subkernel_means = Tensor3::from_shape({m, k, d});
  in.class_given_kernel = Matrix{{0.7, 0.3}, {0.4, 0.6}, {1.0, 0.0}};
  {
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0), var(0.5, 2.0);
    for (double& v : in.kernels.means) v = u(rng);
    for (double& v : in.kernels.diagonal) v = var(rng);
    for (double& v : in.subkernel_means) v = u(rng);
  }
  const auto finite = [](const auto& array) {
    for (double v : array)
      if (!std::isfinite(v)) return false;
    return true;
  };

  std::shared_ptr<KernelPrior> prior;
  bool ready = false;
  runner.run("kernel-prior/make", [&] {
    prior = registry.make_kernel_prior(info.id, params);
    ready = true;
  });
  if (!ready) return;

  runner.run("kernel-prior/determinism", [&] {
    const double a = prior->kernel_penalty(in);
    const double b = registry.make_kernel_prior(info.id, params)->kernel_penalty(in);
    if (!std::isfinite(a)) runner.fail("kernel-prior/determinism", "kernel_penalty is not finite");
    if (!(a == b))
      runner.fail("kernel-prior/determinism", "two instances give different kernel penalties");
  });

  runner.run("kernel-prior/distances", [&] {
    const Matrix distances = prior->kernel_distances(in);
    if (distances.dimension() != 2 || distances.shape(0) != m || distances.shape(1) != k) {
      runner.fail("kernel-prior/distances", "kernel_distances is not M x K = 3 x 2");
      return;
    }
    for (double v : distances) {
      if (!(std::isfinite(v) && v >= 0)) {
        runner.fail("kernel-prior/distances", "a distance D_jk is negative or not finite");
        return;
      }
    }
  });

  runner.run("kernel-prior/mean-terms-add", [&] {
    KernelMeanTerms zero = KernelMeanTerms::zeros(m, d), one = KernelMeanTerms::zeros(m, d);
    one.weight.fill(1.0);
    one.target.fill(1.0);
    prior->add_mean_terms(in, zero);
    prior->add_mean_terms(in, one);
    if (!finite(zero.weight) || !finite(zero.target)) {
      runner.fail("kernel-prior/mean-terms-add", "add_mean_terms gave non-finite terms");
      return;
    }
    for (double v : zero.weight) {
      if (!(v >= 0)) {
        runner.fail("kernel-prior/mean-terms-add", "a mean-term weight is negative");
        return;
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (!(std::fabs(one.weight(j) - 1.0 - zero.weight(j)) <= 1e-12 * (1 + zero.weight(j)))) {
        runner.fail("kernel-prior/mean-terms-add",
                    "add_mean_terms overwrote the weights instead of adding");
        return;
      }
    }
  });

  runner.run("kernel-prior/mixing-terms", [&] {
    Matrix zero = Matrix::from_shape({m, k}), one = Matrix::from_shape({m, k});
    zero.fill(0.0);
    one.fill(1.0);
    prior->add_mixing_terms(in, zero);
    prior->add_mixing_terms(in, one);
    if (!finite(zero)) {
      runner.fail("kernel-prior/mixing-terms", "add_mixing_terms gave non-finite terms");
      return;
    }
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0, scale = 0;
      for (std::size_t c = 0; c < k; ++c) {
        sum += zero(j, c);
        scale += std::fabs(zero(j, c));
        if (!(std::fabs(one(j, c) - 1.0 - zero(j, c)) <= 1e-12 * (1 + std::fabs(zero(j, c))))) {
          runner.fail("kernel-prior/mixing-terms",
                      "add_mixing_terms overwrote the terms instead of adding");
          return;
        }
      }
      if (!(std::fabs(sum) <= 1e-9 * (1 + scale))) {
        runner.fail("kernel-prior/mixing-terms",
                    "the mixing terms of kernel " + std::to_string(j) +
                        " do not sum to 0 over the classes (eq 31)");
        return;
      }
    }
  });
}

}  // namespace detail
}  // namespace radial::conformance
