// A well-behaved plugin used by the loader tests: basis "test-power", phi(r) = r^power.
// Built twice: as itself, and (with RADIAL_TEST_DUPLICATE) as a second file with the same id.
#include <cmath>
#include <memory>

#include <radial/core/errors.hpp>
#include <radial/sdk/plugin.hpp>

namespace {

class PowerBasis final : public radial::Basis {
 public:
  explicit PowerBasis(const radial::Params& params) : power_(params.real("power")) {}
  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres&, radial::FitContext&) override {}
  void map(radial::Matrix& r2) const override {
    for (double& value : r2) value = std::pow(value, 0.5 * power_);
  }
  radial::State state() const override { return {{"power", power_}}; }
  void load_state(const radial::State& state) override {
    power_ = radial::state_get<double>(state, "power", "test-power");
  }

 private:
  double power_;
};

void register_power(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "test-power";
  info.version = "1.0.0";
  info.summary = "phi(r) = r^power (loader tests)";
  info.params = {radial::ParamSpec::real("power", 1.0, "exponent of the distance").above(0)};
  registrar.add_basis(std::move(info), [](const radial::Params& params) {
    return std::make_unique<PowerBasis>(params);
  });
}

}  // namespace

RADIAL_PLUGIN("test-power", "1.0.0", register_power)
