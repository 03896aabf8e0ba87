// Registration functions that throw: std::runtime_error (default) or, with
// RADIAL_ERROR_IN_REGISTRATION, a radial::ParameterError. Each first registers a component, so
// the test can check that nothing of a failed library is committed to the registry.
#include <memory>
#include <stdexcept>

#include <radial/core/errors.hpp>
#include <radial/sdk/plugin.hpp>

namespace {

class IdentityPenalty final : public radial::WeightPenalty {
 public:
  double penalty(const radial::Matrix&) const override { return 0; }
  void add_gradient(const radial::Matrix&, radial::Matrix&) const override {}
  void add_hessian(const radial::Matrix&, radial::Matrix&) const override {}
};

void register_then_throw(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "half-registered";
  registrar.add_weight_penalty(std::move(info), [](const radial::Params&) {
    return std::make_unique<IdentityPenalty>();
  });
#if defined(RADIAL_ERROR_IN_REGISTRATION)
  throw radial::ParameterError("parameter 'alpha' declared twice");
#else
  throw std::runtime_error("table construction failed");
#endif
}

}  // namespace

RADIAL_PLUGIN("half-registered", "1.0.0", register_then_throw)
