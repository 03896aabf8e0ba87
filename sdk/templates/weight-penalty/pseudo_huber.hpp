#pragma once
// The pseudo-Huber penalty on the output weights: alpha sum_p delta^2 (sqrt(1 + (w_p/delta)^2) - 1)
// over the rows of W but the bias (the last). Quadratic, alpha/2 w^2, for |w| << delta and
// linear, alpha delta |w|, for |w| >> delta: a smooth stand-in for the L1 penalty that the
// Newton and quasi-Newton output trainers can use, since it has a gradient and a Hessian.

#include <radial/core/option_table.hpp>
#include <radial/sdk/configured.hpp>
#include <radial/network/weight_penalty.hpp>

namespace pseudo_huber_plugin {

struct PseudoHuberOptions {
  double alpha = 0.01;  // >= 0: pseudo_huber_table()
  double delta = 1.0;   // > 0
};

radial::OptionTable<PseudoHuberOptions> pseudo_huber_table();

class PseudoHuber final
    : public radial::sdk::Configured<radial::WeightPenalty, PseudoHuberOptions> {
 public:
  using Configured::Configured;

  double penalty(const radial::Matrix& weights) const override;
  // gradient += alpha w / sqrt(1 + (w/delta)^2)
  void add_gradient(const radial::Matrix& weights, radial::Matrix& gradient) const override;
  // hessian(p, p) += alpha / (1 + (w/delta)^2)^(3/2): the penalty is a sum over weights
  void add_hessian(const radial::Matrix& weights, radial::Matrix& hessian) const override;
};

}  // namespace pseudo_huber_plugin
