// Where plugins are looked for, and how load_default() treats missing folders and an id found
// in two folders of the search path (the earlier folder wins, as in PATH).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <radial/errors.hpp>
#include <radial/registry.hpp>
#include <radial/testing/paths.hpp>
#include <radial/version.hpp>

namespace fs = std::filesystem;

namespace {

// Sets RADIAL_PLUGIN_PATH for one scope.
class PluginPath {
 public:
  explicit PluginPath(const std::string& value) { setenv("RADIAL_PLUGIN_PATH", value.c_str(), 1); }
  ~PluginPath() { unsetenv("RADIAL_PLUGIN_PATH"); }
};

// A fresh folder under the build tree holding copies of the given libraries.
fs::path folder_with(const std::string& name, std::initializer_list<fs::path> libraries) {
  const fs::path folder = radial::testing::binary_dir() / "tests" / "search-path" / name;
  fs::remove_all(folder);
  fs::create_directories(folder);
  for (const auto& library : libraries) fs::copy_file(library, folder / library.filename());
  return folder;
}

}  // namespace

TEST_CASE("search_path: RADIAL_PLUGIN_PATH entries, then beside the program, then the prefix") {
  const PluginPath path("/opt/first::/opt/second/:");
  const auto folders = radial::Registry::search_path();
  REQUIRE(folders.size() == 4);
  CHECK(folders[0] == fs::path("/opt/first"));
  CHECK(folders[1] == fs::path("/opt/second/"));
  // Tests run from <build>/bin, so the folder beside the program is the build's plugin folder.
  CHECK(fs::weakly_canonical(folders[2]) == fs::weakly_canonical(radial::testing::plugin_dir()));
  CHECK(folders[3] == fs::path(radial::install_plugin_dir).lexically_normal());
}

TEST_CASE("search_path without RADIAL_PLUGIN_PATH, and without duplicates") {
  unsetenv("RADIAL_PLUGIN_PATH");
  const auto plain = radial::Registry::search_path();
  REQUIRE(plain.size() == 2);
  const PluginPath path(radial::testing::plugin_dir().string());
  CHECK(radial::Registry::search_path().size() == 2);  // the same folder is listed once
}

TEST_CASE("load_default skips missing folders and lets earlier folders shadow later ones") {
  const fs::path first = folder_with("first", {GOOD_PLUGIN});
  const fs::path second = folder_with("second", {DUPLICATE_PLUGIN});
  const PluginPath path("/nonexistent/radial/plugins:" + first.string() + ":" + second.string());
  radial::Registry registry;
  REQUIRE_NOTHROW(registry.load_default());
  const auto* info = registry.find(radial::Slot::Basis, "test-power");
  REQUIRE(info != nullptr);
  CHECK(fs::path(info->library).parent_path() == fs::weakly_canonical(first));
  for (const auto& file : registry.loaded_files()) {
    CHECK(file.parent_path() != fs::weakly_canonical(second));
  }
}

TEST_CASE("load_default refuses one id from two libraries of the same folder") {
  const fs::path both = folder_with("both", {GOOD_PLUGIN, DUPLICATE_PLUGIN});
  const PluginPath path(both.string());
  radial::Registry registry;
  CHECK_THROWS_AS(registry.load_default(), radial::PluginError);
}

TEST_CASE("load_folder and load_file name what is missing") {
  radial::Registry registry;
  CHECK_THROWS_WITH(registry.load_folder("/nonexistent/plugins"),
                    Catch::Matchers::Contains("/nonexistent/plugins") &&
                        Catch::Matchers::Contains("does not exist"));
  CHECK_THROWS_WITH(registry.load_file("/nonexistent/libradial-x.so"),
                    Catch::Matchers::Contains("/nonexistent/libradial-x.so") &&
                        Catch::Matchers::Contains("not found"));
}
