// Registration of the `gaussian` basis: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "gaussian_basis.hpp"

namespace radial::plugins {

RADIAL_PLUGIN_COMPONENT(
    "gaussian", "1.0.0", GaussianBasis,
    "Gaussian exp(-r^2/2) on Mahalanobis distances (spherical, diagonal or full shapes), or "
    "the normalised density N(x|c_j,S_j)",
    "NETLAB rbffwd/rbfsetfw (Nabney): exp(-||x-c_j||^2/(2 w_j)) with the max-distance and "
    "nearest-centre width rules; Moody & Darken 1989 (p-nearest widths); lecture notes "
    "(paper 001) Gaussian RBF; Constantinopoulos et al. (paper 004) eq. 5 for the density; "
    "Orr 1996 (widths and ridge chosen by leave-one-out)",
    gaussian_table(),
    [](const Params& params) {
      const GaussianOptions o = gaussian_table().read(params);
      Capabilities c;
      c.density = o.density;
      c.gaussian_activation = !o.density;
      c.width_scale_selectable = width_scale_choosable(o.width, o.density);
      return c;
    })

}  // namespace radial::plugins
