#pragma once
// The exponential basis phi(r) = exp(-r / width), r = ||x - c||: the Laplacian kernel, positive
// everywhere, so it also provides log phi = -r / width.

#include <radial/basis.hpp>
#include <radial/params.hpp>
#include <radial/sdk/configured.hpp>

namespace exponential_plugin {

// The parameter, declared once: the table in register.cpp and the check of a loaded model's
// state both use it.
radial::ParamSpec exponential_width_param();

// What the basis needs from its validated parameters.
struct ExponentialOptions {
  double width = 1.0;  // > 0: exponential_width_param()
};

ExponentialOptions exponential_options(const radial::Params& params);

// A Euclidean basis with nothing to fit to the centres (radial::EuclideanBasis), made from its
// options, which the constructor only stores (radial::sdk::Configured).
class ExponentialBasis final
    : public radial::sdk::Configured<radial::EuclideanBasis, ExponentialOptions> {
 public:
  using Configured::Configured;

  void map(radial::Matrix& r2) const override;
  bool has_log_map() const override { return true; }
  void log_map(radial::Matrix& r2) const override;
  radial::State state() const override;
  void load_state(const radial::State& state) override;
};

}  // namespace exponential_plugin
