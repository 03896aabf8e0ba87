#pragma once
// The `inverse-multiquadric` basis on Euclidean distances: phi(r) = 1 / sqrt(r^2 + c^2).
// Nothing depends on the centres, so prepare() leaves them as they are.

#include <radial/basis.hpp>

namespace radial::plugins {

class InverseMultiquadricBasis final : public Basis {
 public:
  // c > 0, checked by the parameter table.
  explicit InverseMultiquadricBasis(double c) : c2_(c * c) {}

  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres& centres, FitContext& ctx) override;
  void map(Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override;
  State state() const override;
  void load_state(const State& state) override;

 private:
  double c2_;  // c^2
};

}  // namespace radial::plugins
