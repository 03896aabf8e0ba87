// Where plugins are looked for, and how load_default() treats missing folders and an id found
// in two folders of the search path (the earlier folder wins, as in PATH).
#include <cstdlib>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>
#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/paths.hpp>
#include <radial/core/version.hpp>

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

TEST_CASE("load_default leaves out the second library of one id in a folder, and says so") {
  const fs::path both = folder_with("both", {GOOD_PLUGIN, DUPLICATE_PLUGIN});
  const PluginPath path(both.string());
  radial::Registry registry;
  REQUIRE_NOTHROW(registry.load_default());
  CHECK(registry.find(radial::Slot::Basis, "test-power") != nullptr);
  REQUIRE(registry.load_failures().size() == 1);
  const radial::PluginLoadFailure& failure = registry.load_failures().front();
  // Within a folder libraries load in name order: libradial-test-duplicate.so first.
  CHECK(failure.file.filename() == fs::path(GOOD_PLUGIN).filename());
  CHECK_THAT(failure.message, Catch::Matchers::Contains("already registered"));
}

TEST_CASE("one broken library never disables the others; a pipeline naming it is told why") {
  // A library of another ABI, and a stale file under a plugin's name: both left out.
  const fs::path folder = folder_with("broken", {GOOD_PLUGIN, BAD_ABI});
  fs::copy_file(BAD_NOT_A_LIBRARY, folder / "libradial-basis-stale.so");
  const PluginPath path(folder.string());
  radial::Registry registry;
  REQUIRE_NOTHROW(registry.load_default());
  CHECK(registry.find(radial::Slot::Basis, "test-power") != nullptr);
  CHECK(registry.find(radial::Slot::Basis, "gaussian") != nullptr);  // the build's plugins
  REQUIRE(registry.load_failures().size() == 2);
  bool abi = false, stale = false;
  for (const auto& failure : registry.load_failures()) {
    if (failure.file.filename() == fs::path(BAD_ABI).filename()) {
      abi = true;
      CHECK_THAT(failure.message, Catch::Matchers::Contains("ABI version mismatch"));
    }
    if (failure.file.filename() == "libradial-basis-stale.so") {
      stale = true;
      CHECK(failure.id == "stale");  // from the file name: the file has no descriptor
    }
  }
  CHECK(abi);
  CHECK(stale);
  // The component it would have given: refused naming the file and the reason.
  CHECK_THAT(registry.unknown_plugin_message(radial::Slot::Basis, "stale"),
             Catch::Matchers::Contains((folder / "libradial-basis-stale.so").string() +
                                       ", which failed to load") &&
                 Catch::Matchers::Contains("cannot be loaded as a shared library"));
  // Any other unknown id: the failures are pointed at.
  CHECK_THAT(registry.unknown_plugin_message(radial::Slot::Basis, "nonesuch"),
             Catch::Matchers::Contains("2 plugin libraries on the search path failed to load"));
}

TEST_CASE("a library whose file name says another slot is refused, naming both") {
  // The test basis `test-power` under a centre learner's name (a copied template half renamed).
  const fs::path folder = radial::testing::binary_dir() / "tests" / "search-path" / "misnamed";
  fs::remove_all(folder);
  fs::create_directories(folder);
  fs::copy_file(GOOD_PLUGIN, folder / "libradial-centres-test-power.so");
  radial::Registry registry;
  CHECK_THROWS_WITH(registry.load_file(folder / "libradial-centres-test-power.so"),
                    Catch::Matchers::Contains("the file name says a centres plugin") &&
                        Catch::Matchers::Contains("registers a basis component"));
  CHECK(registry.find(radial::Slot::Basis, "test-power") == nullptr);
  radial::Slot slot = radial::Slot::Basis;
  std::string id;
  CHECK(radial::slot_from_file_name("libradial-weight-penalty-x-y.so", slot, id));
  CHECK(slot == radial::Slot::WeightPenalty);
  CHECK(id == "x-y");
  CHECK_FALSE(radial::slot_from_file_name("libradial-test-good.so", slot, id));
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
