#pragma once
// A weight penalty written out in the tests, independent of the weight-decay plugin:
// alpha/2 ||W||^2 over every weight, or over all but the bias row (the last, as the plugin).

#include <cstddef>

#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial::testing {

class QuadraticPenalty final : public radial::WeightPenalty {
 public:
  QuadraticPenalty(double alpha, bool with_bias) : alpha_(alpha), with_bias_(with_bias) {}
  double penalty(const Matrix& w) const override {
    double s = 0;
    for (std::size_t p = 0; p < counted(w); ++p) s += w.data()[p] * w.data()[p];
    return 0.5 * alpha_ * s;
  }
  void add_gradient(const Matrix& w, Matrix& g) const override {
    for (std::size_t p = 0; p < counted(w); ++p) g.data()[p] += alpha_ * w.data()[p];
  }
  void add_hessian(const Matrix& w, Matrix& h) const override {
    for (std::size_t p = 0; p < counted(w); ++p) h(p, p) += alpha_;
  }

 private:
  // Weights are C x K row-major with the bias row last: the first (C - 1) K entries, or all.
  std::size_t counted(const Matrix& w) const {
    return with_bias_ ? w.size() : (w.shape(0) - 1) * w.shape(1);
  }
  double alpha_;
  bool with_bias_;
};

}  // namespace radial::testing
