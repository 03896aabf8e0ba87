// Registration of the `gaussian` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "gaussian_basis.hpp"

namespace radial::plugins {
namespace {

void register_gaussian(Registrar& registrar) {
  registrar.add_basis(
      sdk::describe(
          "Gaussian exp(-r^2/2) on Mahalanobis distances (spherical, diagonal or full shapes), or "
          "the normalised density N(x|c_j,S_j)",
          "NETLAB rbffwd/rbfsetfw (Nabney): exp(-||x-c_j||^2/(2 w_j)), w_j = max squared distance "
          "between centres; lecture notes (paper 001) Gaussian RBF; Constantinopoulos et al. "
          "(paper 004) eq. 5 for the density",
          {
              ParamSpec::real(
                  "width", 0.0,
                  "standard deviation sigma for every centre (spherical variance "
                  "sigma^2, overriding the centres' shapes); 0 uses the centres' "
                  "shapes, or NETLAB's rule when they have none; otherwise between 1.5e-154 "
                  "and 1.3e154, so that width^2 is a normal double (checked when "
                  "the basis is made)")
                  .at_least(0.0),
              ParamSpec::boolean("density", false,
                                 "normalised density N(x|c_j,S_j) instead of exp(-r^2/2); "
                                 "needed by PRBF / Bayes outputs"),
          }),
      sdk::from_options<GaussianBasis>(gaussian_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("gaussian", "1.0.0", radial::plugins::register_gaussian)
