#pragma once
// A plugin library loaded alone, by its file name, from the folder of the plugins under test
// (plugin_dir.hpp), with its registration checked: what a plugin's tests start from when they
// should not depend on any other plugin. Installed with Radial::testing.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "radial/plugin/loader.hpp"
#include "radial/testing/plugin_dir.hpp"

namespace radial::testing {

// Loads libradial-<library>.so ("centres-kmeans", "basis-gaussian") into `registry` and returns
// the registration of component `id`, which must be in `slot` with a summary and a paper.
inline const ComponentInfo& require_plugin(Registry& registry, const std::string& library,
                                           Slot slot, const std::string& id) {
  registry.load_file(plugin_dir() / ("libradial-" + library + ".so"));
  const ComponentInfo& info = registry.require(slot, id);
  REQUIRE(info.slot == slot);
  REQUIRE_FALSE(info.summary.empty());
  REQUIRE_FALSE(info.paper.empty());
  return info;
}

// `call` throws an E whose message contains `fragment` (a Radial error that names its cause).
template <class E, class Call>
void check_throws_with(Call&& call, const std::string& fragment) {
  try {
    std::forward<Call>(call)();
    FAIL("expected an exception containing: " << fragment);
  } catch (const E& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains(fragment));
  }
}

}  // namespace radial::testing
