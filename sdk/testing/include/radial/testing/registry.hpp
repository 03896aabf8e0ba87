#pragma once
// Registries of the plugins under test (plugin_dir.hpp), loaded once per test executable: loading a
// plugin library costs a dlopen and its registration, so tests share one registry instead of each
// making its own.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "radial/plugin/loader.hpp"
#include "radial/testing/plugin_dir.hpp"

namespace radial::testing {

// Every plugin the build made.
inline const Registry& shipped_registry() {
  static const std::unique_ptr<Registry> registry = [] {
    auto r = std::make_unique<Registry>();
    r->load_folder(plugin_dir());
    return r;
  }();
  return *registry;
}

// Only the named plugin libraries ("centres-gmm" for libradial-centres-gmm.so), for a plugin's
// tests that should not depend on the others.
inline const Registry& plugin_registry(const std::vector<std::string>& plugins) {
  static std::map<std::vector<std::string>, std::unique_ptr<Registry>> loaded;
  auto& registry = loaded[plugins];
  if (!registry) {
    auto r = std::make_unique<Registry>();
    for (const auto& name : plugins) r->load_file(plugin_dir() / ("libradial-" + name + ".so"));
    registry = std::move(r);
  }
  return *registry;
}

// A centre learner of `registry` made from `given`, checked by validate_params as the host
// checks a pipeline's parameters.
inline std::shared_ptr<CentreLearner> make_centre_learner(
    const Registry& registry, const std::string& id,
    const std::map<std::string, ParamValue>& given) {
  const auto& info = registry.require(Slot::Centres, id);
  return registry.make_centre_learner(id, validate_params(info.params, given, "plugin " + id));
}

}  // namespace radial::testing
