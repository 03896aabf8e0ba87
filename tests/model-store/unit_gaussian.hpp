#pragma once
// A basis for network tests: phi(r) = exp(-r^2 / 2) on Euclidean distances, positive everywhere,
// so it has a log map and every link (Bayes included) can be evaluated by hand.

#include <cmath>

#include "radial/network/basis.hpp"

namespace radial::testing {

class UnitGaussian : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (std::size_t i = 0; i < r2.size(); ++i) r2.data()[i] = std::exp(-0.5 * r2.data()[i]);
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override {
    for (std::size_t i = 0; i < r2.size(); ++i) r2.data()[i] = -0.5 * r2.data()[i];
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

}  // namespace radial::testing
