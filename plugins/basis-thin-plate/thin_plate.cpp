#include "thin_plate.hpp"

#include <radial/numerics/radial_functions.hpp>

namespace radial::plugins {

// phi(r) = r^2 log r = 0.5 r^2 log r^2 (Nabney, papers 000/003, output eq. 14's basis).
void ThinPlateBasis::map(Matrix& r2) const { polyharmonic_log(r2, 1); }

void ThinPlateBasis::map_derivative(const Matrix& r2, const Matrix&, Matrix& dphi) const {
  polyharmonic_log_derivative(r2, 1, dphi);  // 0.5 (log r^2 + 1)
}

}  // namespace radial::plugins
