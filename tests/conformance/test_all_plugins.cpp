// Every plugin the build put in its plugin folder passes the conformance kit.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/paths.hpp>

namespace {

// Loaded once for all generated cases; outlives every object the checks make.
const radial::Registry& build_plugins() {
  static radial::Registry registry;
  static const bool loaded = (registry.load_folder(radial::testing::plugin_dir()), true);
  (void)loaded;
  return registry;
}

// Values for parameters a plugin requires (the kit's data has two features).
radial::conformance::Options options_for(const std::string& id) {
  radial::conformance::Options options;
  if (id == "fixed") {
    const auto file = radial::testing::source_dir() / "tests" / "conformance" / "data" /
                      "fixed-centres-2d.csv";
    options.params["file"] = file.string();
  }
  return options;
}

std::vector<std::string> build_plugin_ids() {
  std::vector<std::string> ids;
  for (const auto* info : build_plugins().components()) ids.push_back(info->id);
  return ids;
}

}  // namespace

TEST_CASE("every plugin in the build's plugin folder passes the conformance kit", "[conformance]") {
  const std::vector<std::string> ids = build_plugin_ids();
  REQUIRE_FALSE(ids.empty());
  const std::string id = GENERATE_COPY(from_range(ids));
  INFO("plugin " << id << " from " << build_plugins().components().size() << " loaded");
  radial::conformance::check_plugin(build_plugins(), id, options_for(id));
}

TEST_CASE("every library in the plugin folder registered its component", "[conformance]") {
  const auto& registry = build_plugins();
  CHECK(registry.loaded_files().size() == registry.components().size());
  for (const auto* info : registry.components()) {
    CAPTURE(info->id, info->library);
    CHECK(std::filesystem::weakly_canonical(radial::testing::plugin_dir()) ==
          std::filesystem::path(info->library).parent_path());
  }
}
