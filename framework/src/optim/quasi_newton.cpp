// The BFGS inverse-Hessian update (radial/optim/quasi_newton.hpp).
#include "radial/optim/quasi_newton.hpp"

#include <cstddef>

namespace radial::glm {

void bfgs_inverse_update(Matrix& h, const Matrix& s, const Matrix& y, double sy, Vector& hy) {
  const std::size_t p = h.shape(0);
  for (std::size_t i = 0; i < p; ++i) {
    double v = 0;
    for (std::size_t j = 0; j < p; ++j) v += h(i, j) * y.data()[j];
    hy(i) = v;
  }
  double yhy = 0;
  for (std::size_t i = 0; i < p; ++i) yhy += y.data()[i] * hy(i);
  const double a = (sy + yhy) / (sy * sy);
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j)
      h(i, j) += a * s.data()[i] * s.data()[j] - (hy(i) * s.data()[j] + s.data()[i] * hy(j)) / sy;
}

}  // namespace radial::glm
