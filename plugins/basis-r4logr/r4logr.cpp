#include "r4logr.hpp"

#include <radial/numerics/radial_functions.hpp>

namespace radial::plugins {

// phi(r) = r^4 log r = 0.5 (r^2)^2 log r^2 (NETLAB rbffwd 'r4logr').
void R4LogRBasis::map(Matrix& r2) const { polyharmonic_log(r2, 2); }

}  // namespace radial::plugins
