// Kernel prior `kullback-leibler`: the prior of Constantinopoulos, Titsias & Likas (2001) with
// the Kullback-Leibler divergence in place of the Bhattacharyya distance. With Sigma_jk = Sigma_j,
//   D_jk = KL(N(mu_jk, Sigma_j) || N(mu_j, Sigma_j)) = delta_jk / 2,
//   -log p(theta) = alpha sum_j sum_k P(C_k|j) D_jk                                 (eqs 16-17)
// so the mean terms have weights alpha P(C_k|j) toward mu_jk (the form of KernelMeanTerms), and
// the mixing terms are pi_jk d log p / d pi_jk = alpha P(C_k|j) (sum_l P(C_l|j) D_jl - D_jk),
// which sum to 0 over k (eq 31).
#include <radial/network/kernel_prior.hpp>
#include <radial/sdk/configured.hpp>
#include <radial/sdk/plugin.hpp>

namespace {

using radial::KernelMeanTerms;
using radial::KernelPriorInput;
using radial::Matrix;

struct KullbackLeiblerOptions {
  double alpha = 1.0;
};

radial::OptionTable<KullbackLeiblerOptions> kullback_leibler_table() {
  radial::OptionTable<KullbackLeiblerOptions> t;
  t.bind("alpha", &KullbackLeiblerOptions::alpha, "prior strength alpha (absolute)").at_least(0.0);
  return t;
}

class KullbackLeibler final
    : public radial::sdk::Configured<radial::KernelPrior, KullbackLeiblerOptions> {
 public:
  using Configured::Configured;

  Matrix kernel_distances(const KernelPriorInput& in) const override {
    Matrix d = radial::subkernel_mahalanobis(in);
    for (double& v : d) v *= 0.5;
    return d;
  }
  double kernel_penalty(const KernelPriorInput& in) const override {
    const Matrix d = kernel_distances(in);
    double sum = 0;
    for (std::size_t j = 0; j < in.count(); ++j)
      for (std::size_t k = 0; k < in.classes(); ++k) sum += in.class_given_kernel(j, k) * d(j, k);
    return options_.alpha * sum;
  }
  void add_mean_terms(const KernelPriorInput& in, KernelMeanTerms& terms) const override {
    for (std::size_t j = 0; j < in.count(); ++j)
      for (std::size_t k = 0; k < in.classes(); ++k) {
        const double w = options_.alpha * in.class_given_kernel(j, k);
        terms.weight(j) += w;
        for (std::size_t a = 0; a < in.dim(); ++a)
          terms.target(j, a) += w * in.subkernel_means(j, k, a);
      }
  }
  void add_mixing_terms(const KernelPriorInput& in, Matrix& terms) const override {
    const Matrix d = kernel_distances(in);
    for (std::size_t j = 0; j < in.count(); ++j) {
      double mean = 0;
      for (std::size_t l = 0; l < in.classes(); ++l) mean += in.class_given_kernel(j, l) * d(j, l);
      for (std::size_t k = 0; k < in.classes(); ++k)
        terms(j, k) += options_.alpha * in.class_given_kernel(j, k) * (mean - d(j, k));
    }
  }
};

void register_kullback_leibler(radial::Registrar& registrar) {
  registrar.add_kernel_prior(
      radial::sdk::describe(
          "Kullback-Leibler kernel prior for PRBF MAP training",
          "template plugin of the Radial SDK (Constantinopoulos et al. 2001, eqs 16-17 with "
          "D = KL)",
          kullback_leibler_table()),
      radial::sdk::from_table<KullbackLeibler>(kullback_leibler_table()));
}

}  // namespace

RADIAL_PLUGIN("kullback-leibler", "1.0.0", register_kullback_leibler)
