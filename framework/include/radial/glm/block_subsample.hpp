#pragma once
// The GLM objective on a subsample of whole row blocks, for a warm start of Newton-type output
// training on many rows: on every s-th block of rows, with the penalty scaled by the share of
// the rows the subsample holds (n/N), its minimiser estimates the full problem's (the data
// term is a sum over rows, so E_sub + (n/N) penalty is proportional to an unbiased estimate of
// E_data + penalty). Blocks are chosen by their global index, so the subsample is the same rows
// for any thread count and, on block-aligned shards, any rank count.

#include <cstddef>
#include <memory>

#include "radial/glm/objective.hpp"
#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::glm {

// factor x another penalty (its value, gradient and Hessian).
class ScaledPenalty final : public WeightPenalty {
 public:
  ScaledPenalty(const WeightPenalty& inner, double factor) : inner_(inner), factor_(factor) {}
  double penalty(const Matrix& weights) const override;
  void add_gradient(const Matrix& weights, Matrix& gradient) const override;
  void add_hessian(const Matrix& weights, Matrix& hessian) const override;
  void add_hessian_product(const Matrix& weights, const Matrix& direction,
                           Matrix& product) const override;

 private:
  const WeightPenalty& inner_;
  double factor_;
};

struct BlockSubsample {
  std::size_t stride = 1;
  std::size_t rows = 0;  // over all ranks
  std::unique_ptr<ScaledPenalty> penalty;  // null when the full objective has none
  std::unique_ptr<Objective> objective;    // Phi held in memory, the full one's threads
};

// The objective on `full`'s row blocks whose global index is a multiple of `stride`
// (Objective::every_nth_block). Every rank must call it.
BlockSubsample block_subsample(const Objective& full, std::size_t stride);

}  // namespace radial::glm
