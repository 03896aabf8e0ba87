#pragma once
// The exponential basis phi(r) = exp(-r / width), r = ||x - c||: the Laplacian kernel, positive
// everywhere, so it also provides log phi = -r / width.

#include <radial/basis.hpp>
#include <radial/params.hpp>

namespace exponential_plugin {

// What the basis needs from its validated parameters.
struct ExponentialOptions {
  double width = 1.0;  // > 0: the parameter table
};

ExponentialOptions exponential_options(const radial::Params& params);

class ExponentialBasis final : public radial::Basis {
 public:
  // Constructors only store (scikit-learn's rule); nothing depends on the data.
  explicit ExponentialBasis(ExponentialOptions options) : width_(options.width) {}

  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres& centres, radial::FitContext& ctx) override;
  void map(radial::Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  void log_map(radial::Matrix& r2) const override;
  radial::State state() const override;
  void load_state(const radial::State& state) override;

 private:
  double width_;
};

}  // namespace exponential_plugin
