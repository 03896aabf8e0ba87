#include "r4logr.hpp"

#include <radial/numerics/radial_functions.hpp>

namespace radial::plugins {

// phi(r) = r^4 log r = 0.5 (r^2)^2 log r^2 (NETLAB rbffwd 'r4logr').
void R4LogRBasis::map(Matrix& r2) const { polyharmonic_log(r2, 2); }

void R4LogRBasis::map_derivative(const Matrix& r2, const Matrix&, Matrix& dphi) const {
  polyharmonic_log_derivative(r2, 2, dphi);  // 0.5 r^2 (2 log r^2 + 1)
}

}  // namespace radial::plugins
