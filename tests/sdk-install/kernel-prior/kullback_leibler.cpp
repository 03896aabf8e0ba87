// Kernel prior `kullback-leibler`: the prior of Constantinopoulos, Titsias & Likas (2001) with
// the Kullback-Leibler divergence in place of the Bhattacharyya distance. With Sigma_jk = Sigma_j,
//   D_jk = KL(N(mu_jk, Sigma_j) || N(mu_j, Sigma_j)) = delta_jk / 2,
//   -log p(theta) = alpha sum_j sum_k P(C_k|j) D_jk                                 (eqs 16-17)
// so the mean terms have weights alpha P(C_k|j) toward mu_jk (the form of KernelMeanTerms), and
// the mixing terms are pi_jk d log p / d pi_jk = alpha P(C_k|j) (sum_l P(C_l|j) D_jl - D_jk),
// which sum to 0 over k (eq 31).
#include <memory>

#include <radial/kernel_prior.hpp>
#include <radial/sdk/plugin.hpp>

namespace {

using radial::KernelMeanTerms;
using radial::KernelPriorInput;
using radial::Matrix;

class KullbackLeibler final : public radial::KernelPrior {
 public:
  explicit KullbackLeibler(const radial::Params& params) : alpha_(params.real("alpha")) {}

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
    return alpha_ * sum;
  }
  void add_mean_terms(const KernelPriorInput& in, KernelMeanTerms& terms) const override {
    for (std::size_t j = 0; j < in.count(); ++j)
      for (std::size_t k = 0; k < in.classes(); ++k) {
        const double w = alpha_ * in.class_given_kernel(j, k);
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
        terms(j, k) += alpha_ * in.class_given_kernel(j, k) * (mean - d(j, k));
    }
  }

 private:
  double alpha_;
};

void register_kullback_leibler(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "kullback-leibler";
  info.version = "1.0.0";
  info.summary = "Kullback-Leibler kernel prior for PRBF MAP training";
  info.paper = "test plugin of the sdk-install-kernel-prior test (Constantinopoulos et al. 2001, "
               "eqs 16-17 with D = KL)";
  info.params = {
      radial::ParamSpec::real("alpha", 1.0, "prior strength alpha (absolute)").at_least(0.0),
  };
  registrar.add_kernel_prior(std::move(info), [](const radial::Params& params) {
    return std::make_unique<KullbackLeibler>(params);
  });
}

}  // namespace

RADIAL_PLUGIN("kullback-leibler", "1.0.0", register_kullback_leibler)
