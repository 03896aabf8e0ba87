// log N(x | c_j, S_j) = -0.5 * (r_j^2 + d log 2 pi + log |S_j|), r_j Mahalanobis.
#include "radial/numerics/gaussian.hpp"

#include <cmath>
#include <vector>

#include "radial/core/errors.hpp"

namespace radial {

namespace {

const Centres& require_shape(const Centres& centres) {
  if (centres.shape == Shape::None)
    throw ShapeError("GaussianLogDensity: the centres have no shape (spherical, diagonal or full "
                     "covariance); fit them with a Gaussian centre learner or give widths");
  return centres;
}

}  // namespace

GaussianLogDensity::GaussianLogDensity(const Centres& centres)
    : distances_(require_shape(centres), Metric::Shape) {
  const double d_log_2pi = double(distances_.dim()) * std::log(2.0 * M_PI);
  const Vector& log_det = distances_.log_determinants();
  constant_ = Vector::from_shape({distances_.count()});
  for (std::size_t j = 0; j < constant_.size(); ++j) constant_(j) = -0.5 * (d_log_2pi + log_det(j));
}

void GaussianLogDensity::compute(const Matrix& x_block, Matrix& out) const {
  distances_.compute(x_block, out);
  const std::size_t n = out.shape(0), m = out.shape(1);
  double* o = out.data();
  const double* c = constant_.data();
  for (std::size_t row = 0; row < n; ++row) {
    double* r = o + row * m;
    for (std::size_t j = 0; j < m; ++j) r[j] = c[j] - 0.5 * r[j];
  }
  // Rows with missing cells: the marginal of the observed coordinates, exactly.
  const std::size_t d = distances_.dim();
  for (std::size_t row = 0; row < n; ++row) {
    const double* xr = &x_block(row, 0);
    std::size_t observed = d;
    for (std::size_t k = 0; k < d; ++k) observed -= std::isnan(xr[k]) ? 1 : 0;
    if (observed == d) continue;
    thread_local std::vector<double> log_det;
    log_det.resize(m);
    double* r = o + row * m;
    distances_.compute_observed(xr, r, log_det.data());
    const double o_log_2pi = double(observed) * std::log(2.0 * M_PI);
    for (std::size_t j = 0; j < m; ++j) r[j] = -0.5 * (o_log_2pi + log_det[j] + r[j]);
  }
}

}  // namespace radial
