#pragma once
// The `thin-plate` basis on Euclidean distances: phi(r) = r^2 log r, 0 at r = 0.
// Nothing depends on the centres, so prepare() leaves them as they are.

#include <radial/basis.hpp>

namespace radial::plugins {

class ThinPlateBasis final : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres& centres, FitContext& ctx) override;
  void map(Matrix& r2) const override;
  State state() const override;
  void load_state(const State& state) override;
};

}  // namespace radial::plugins
