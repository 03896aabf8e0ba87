// The pseudo-Huber weight penalty (pseudo_huber.hpp).
#include "pseudo_huber.hpp"

#include <cmath>
#include <string>

#include <radial/core/errors.hpp>

namespace pseudo_huber_plugin {

namespace {

// The weights the penalty covers: every row of W but the last (the bias).
std::size_t penalised(const radial::Matrix& w) { return (w.shape(0) - 1) * w.shape(1); }

}  // namespace

radial::OptionTable<PseudoHuberOptions> pseudo_huber_table() {
  radial::OptionTable<PseudoHuberOptions> t;
  t.bind("alpha", &PseudoHuberOptions::alpha, "strength alpha of the penalty").at_least(0.0);
  t.bind("delta", &PseudoHuberOptions::delta,
         "scale delta: quadratic below it, linear above it")
      .above(0.0);
  return t;
}

double PseudoHuber::penalty(const radial::Matrix& weights) const {
  const double a = options_.alpha, d = options_.delta;
  double sum = 0;
  for (std::size_t p = 0; p < penalised(weights); ++p) {
    const double u = weights.data()[p] / d;
    sum += d * d * (std::sqrt(1.0 + u * u) - 1.0);
  }
  return a * sum;
}

void PseudoHuber::add_gradient(const radial::Matrix& weights, radial::Matrix& gradient) const {
  if (gradient.shape() != weights.shape())
    throw radial::ShapeError("pseudo-huber: the gradient's shape differs from the weights'");
  const double a = options_.alpha, d = options_.delta;
  for (std::size_t p = 0; p < penalised(weights); ++p) {
    const double w = weights.data()[p], u = w / d;
    gradient.data()[p] += a * w / std::sqrt(1.0 + u * u);
  }
}

void PseudoHuber::add_hessian(const radial::Matrix& weights, radial::Matrix& hessian) const {
  const std::size_t size = weights.size();
  if (hessian.dimension() != 2 || hessian.shape(0) != size || hessian.shape(1) != size)
    throw radial::ShapeError("pseudo-huber: the Hessian must be " + std::to_string(size) +
                             " x " + std::to_string(size));
  const double a = options_.alpha, d = options_.delta;
  for (std::size_t p = 0; p < penalised(weights); ++p) {
    const double u = weights.data()[p] / d, s = 1.0 + u * u;
    hessian(p, p) += a / (s * std::sqrt(s));
  }
}

}  // namespace pseudo_huber_plugin
