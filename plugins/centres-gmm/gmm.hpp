#pragma once
// `gmm`: centres from a Gaussian mixture fitted by EM (Nabney / NETLAB gmm, gmminit, gmmem;
// Klautau, paper 002, section III-A and fig. 1).
//
//   pooled     one mixture of `count` Gaussians on all inputs: the unconditional density p(x),
//              whose means and covariances become the RBF centres and shapes (Nabney)
//   per-class  one mixture of `count` Gaussians per class (paper 002, fig. 1): M = K * count
//              centres with owner = class, mixing pi_jk = w_jg for the owner class (0 for the
//              others) and class priors P(C_k) = N_k / N, so the `bayes` output classifies with
//              p(C_k|x) proportional to P(C_k) sum_g w_kg N(x | mu_kg, S_kg)
//
// Each mixture starts from k-means (radial::kmeans, seeded by the fit context) and the M-step of
// its hard assignment, then runs EM (radial/numerics/mixture/mixture_em.hpp) until the log-likelihood
// changes by at most `tolerance` relative, or `iterations` M-steps. With kdtree = true the
// E-step evaluates only the Gaussians of each row's K-d tree leaf (paper 002, section III-C).
//
// Guards in the fit report: covariance-floor (a variance below covariance_floor was raised),
// empty-component (a component lost all responsibility and was reseeded at the worst-explained
// row), empty-cluster (k-means repairs), kdtree-fallback (a row's leaf held none of its
// mixture's Gaussians), likelihood-decrease (possible only through those guards or the tree).

#include <cstddef>
#include <string>

#include <radial/sdk/configured.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/core/centres.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct GmmOptions {
  std::size_t count = 8;          // components (per class in per-class mode)
  std::string mode = "pooled";    // "pooled" | "per-class"
  EmOptions em;                   // shape, iterations, tolerance, floor, tree
};

class GmmLearner final : public sdk::Configured<CentreLearner, GmmOptions> {
 public:
  using Configured::Configured;

  // Any data when pooled (InputError when N < count); per-class needs classes (InputError
  // otherwise, or when a class has fewer rows than count).
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;
};

}  // namespace radial::plugins
