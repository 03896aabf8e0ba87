// The objective on a subsample of row blocks (see radial/glm/block_subsample.hpp).
#include "radial/glm/block_subsample.hpp"

#include <xtensor/xbuilder.hpp>

#include "radial/distributed/collectives.hpp"

namespace radial::glm {

double ScaledPenalty::penalty(const Matrix& weights) const {
  return factor_ * inner_.penalty(weights);
}

void ScaledPenalty::add_gradient(const Matrix& weights, Matrix& gradient) const {
  Matrix part = xt::zeros<double>(gradient.shape());
  inner_.add_gradient(weights, part);
  gradient += factor_ * part;
}

void ScaledPenalty::add_hessian(const Matrix& weights, Matrix& hessian) const {
  Matrix part = xt::zeros<double>(hessian.shape());
  inner_.add_hessian(weights, part);
  hessian += factor_ * part;
}

void ScaledPenalty::add_hessian_product(const Matrix& weights, const Matrix& direction,
                                        Matrix& product) const {
  Matrix part = xt::zeros<double>(product.shape());
  inner_.add_hessian_product(weights, direction, part);
  product += factor_ * part;
}

BlockSubsample block_subsample(const Objective& full, std::size_t stride) {
  BlockSubsample sub;
  sub.stride = stride;
  Matrix design, targets;
  full.every_nth_block(stride, design, targets);
  // n / N, the subsample's share of all ranks' rows.
  const double share = double(count_over_ranks(design.shape(0))) / double(full.total_rows());
  if (full.weight_penalty())
    sub.penalty = std::make_unique<ScaledPenalty>(*full.weight_penalty(), share);
  sub.objective = std::make_unique<Objective>(std::move(design), std::move(targets), full.link(),
                                              sub.penalty.get());
  sub.objective->set_threads(full.threads());
  sub.rows = sub.objective->total_rows();
  return sub;
}

}  // namespace radial::glm
