#pragma once
// The exponential basis phi(r) = exp(-r / width), r = ||x - c||: the Laplacian kernel, positive
// everywhere, so it also provides log phi = -r / width.

#include <radial/network/basis.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/configured.hpp>

namespace exponential_plugin {

// What the basis needs from its validated parameters; the defaults are the parameters'.
struct ExponentialOptions {
  double width = 1.0;  // > 0: exponential_table()
};

// The parameters bound to the options, declared once: register.cpp and the check of a loaded
// model's state both use them.
radial::OptionTable<ExponentialOptions> exponential_table();

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
