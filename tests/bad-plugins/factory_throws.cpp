// Loads cleanly; its factory throws std::runtime_error (mode = "std") or a radial::ShapeError
// (mode = "radial"), or returns nothing (mode = "null").
#include <memory>
#include <stdexcept>

#include <radial/core/errors.hpp>
#include <radial/sdk/plugin.hpp>

namespace {

void register_throwing_factory(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "test-factory-throws";
  info.version = "1.0.0";
  info.summary = "a centre learner whose factory fails (loader tests)";
  info.params = {radial::ParamSpec::choice("mode", "std", {"std", "radial", "null"},
                                           "which failure the factory produces")};
  registrar.add_centre_learner(
      std::move(info), [](const radial::Params& params) -> std::unique_ptr<radial::CentreLearner> {
        const std::string& mode = params.string("mode");
        if (mode == "radial") throw radial::ShapeError("centres must be 2-dimensional");
        if (mode == "null") return nullptr;
        throw std::runtime_error("out of widths");
      });
}

}  // namespace

RADIAL_PLUGIN("test-factory-throws", "1.0.0", register_throwing_factory)
