#pragma once
// The BFGS update of an inverse-Hessian approximation (Nocedal & Wright, Numerical
// Optimization, eq. 6.17), for quasi-Newton output trainers:
//   H <- H + (s^T y + y^T H y) / (s^T y)^2 s s^T - (H y s^T + s y^T H) / (s^T y)
// with s the step and y the change of gradient, both P numbers in the flattening of W.

#include "radial/core/types.hpp"

namespace radial::glm {

// Applies the update to the P x P matrix `h` in place; `sy` = s . y must be > 0 (the curvature
// condition; callers skip the update otherwise). `hy` (P numbers) is scratch space.
void bfgs_inverse_update(Matrix& h, const Matrix& s, const Matrix& y, double sy, Vector& hy);

}  // namespace radial::glm
