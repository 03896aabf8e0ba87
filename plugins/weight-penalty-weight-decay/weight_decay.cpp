// Weight decay alpha/2 ||w||^2 (see weight_decay.hpp).
#include "weight_decay.hpp"

#include <sstream>

#include "radial/core/errors.hpp"

namespace radial::plugins {

std::size_t WeightDecay::penalised_rows(const Matrix& weights) const {
  const std::size_t rows = weights.shape(0);
  return include_bias_ || rows == 0 ? rows : rows - 1;
}

double WeightDecay::penalty(const Matrix& weights) const {
  const std::size_t k = weights.shape(1);
  const std::size_t n = penalised_rows(weights) * k;
  double sum = 0;
  for (std::size_t p = 0; p < n; ++p) sum += weights.data()[p] * weights.data()[p];
  return 0.5 * alpha_ * sum;
}

void WeightDecay::add_gradient(const Matrix& weights, Matrix& gradient) const {
  if (gradient.shape(0) != weights.shape(0) || gradient.shape(1) != weights.shape(1)) {
    std::ostringstream msg;
    msg << "weight-decay: the gradient is " << gradient.shape(0) << " x " << gradient.shape(1)
        << " but the weights are " << weights.shape(0) << " x " << weights.shape(1);
    throw ShapeError(msg.str());
  }
  const std::size_t n = penalised_rows(weights) * weights.shape(1);
  for (std::size_t p = 0; p < n; ++p) gradient.data()[p] += alpha_ * weights.data()[p];
}

void WeightDecay::add_hessian(const Matrix& weights, Matrix& hessian) const {
  const std::size_t size = weights.size();
  if (hessian.shape(0) != size || hessian.shape(1) != size) {
    std::ostringstream msg;
    msg << "weight-decay: the Hessian is " << hessian.shape(0) << " x " << hessian.shape(1)
        << " but the weights (" << weights.shape(0) << " x " << weights.shape(1) << ") need "
        << size << " x " << size;
    throw ShapeError(msg.str());
  }
  // Row-major flattening p = i*K + k: the penalised rows are the first entries.
  const std::size_t n = penalised_rows(weights) * weights.shape(1);
  for (std::size_t p = 0; p < n; ++p) hessian(p, p) += alpha_;
}

void WeightDecay::add_hessian_product(const Matrix& weights, const Matrix& direction,
                                      Matrix& product) const {
  if (direction.shape() != weights.shape() || product.shape() != weights.shape()) {
    std::ostringstream msg;
    msg << "weight-decay: a Hessian-vector product needs a direction and a product of the "
           "weights' shape, "
        << weights.shape(0) << " x " << weights.shape(1);
    throw ShapeError(msg.str());
  }
  const std::size_t n = penalised_rows(weights) * weights.shape(1);
  for (std::size_t p = 0; p < n; ++p) product.data()[p] += alpha_ * direction.data()[p];
}

}  // namespace radial::plugins
