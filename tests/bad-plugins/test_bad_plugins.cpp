// The loader refuses each deliberately broken plugin with a message naming the file, what it
// expected and what it found, and stays usable afterwards (gz-plugin's bad-plugin tests).
#include <dlfcn.h>

#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <radial/core/errors.hpp>
#include <radial/plugin/fingerprint.hpp>
#include <radial/plugin/plugin_abi.hpp>
#include <radial/plugin/loader.hpp>

namespace {

using Catch::Matchers::Contains;

// The PluginError message of loading `file` into `registry` (fails the test if it loads).
std::string refusal(radial::Registry& registry, const std::string& file) {
  try {
    registry.load_file(file);
  } catch (const radial::PluginError& error) {
    return error.what();
  }
  FAIL("loading " << file << " did not throw a PluginError");
  return {};
}

// The registry still works: the good plugin loads, makes a basis, and maps r2 -> r^power.
void require_usable(radial::Registry& registry) {
  registry.load_file(GOOD_PLUGIN);
  REQUIRE(registry.find(radial::Slot::Basis, "test-power") != nullptr);
  const radial::Params params =
      radial::validate_params(registry.require(radial::Slot::Basis, "test-power").params,
                              {{"power", 3.0}}, "test");
  auto basis = registry.make_basis("test-power", params);
  radial::Matrix r2 = {{4.0, 9.0}};
  basis->map(r2);
  CHECK(r2(0, 0) == Approx(8.0));   // 2^3
  CHECK(r2(0, 1) == Approx(27.0));  // 3^3
}

bool library_is_loaded(const char* file) {
  void* handle = dlopen(file, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return false;
  dlclose(handle);
  return true;
}

}  // namespace

TEST_CASE("a library without the entry symbol is refused, naming the file and the symbol") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_NO_ENTRY);
  CHECK_THAT(message, Contains(BAD_NO_ENTRY));
  CHECK_THAT(message, Contains("radial_plugin_v1"));
  CHECK_THAT(message, Contains("missing"));
  CHECK(registry.components().empty());
  CHECK(registry.loaded_files().empty());
  require_usable(registry);
}

TEST_CASE("a wrong ABI version is refused with expected and found versions") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_ABI);
  CHECK_THAT(message, Contains(BAD_ABI));
  CHECK_THAT(message, Contains("ABI version"));
  CHECK_THAT(message, Contains("expected " + std::to_string(radial::plugin_abi_version)));
  CHECK_THAT(message, Contains("found 999"));
  CHECK_THAT(message, Contains("Rebuild the plugin"));
  CHECK(registry.find(radial::Slot::Basis, "must-not-register") == nullptr);
  require_usable(registry);
}

TEST_CASE("a plugin built against a copied header with a virtual added is refused") {
  // The right ABI version, size and fingerprint, but basis.hpp copied with one more virtual:
  // every later slot of the plugin's vtables is shifted, so it would crash at its first call.
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_LAYOUT);
  CHECK_THAT(message, Contains(BAD_LAYOUT));
  CHECK_THAT(message, Contains("interface layout mismatch"));
  CHECK_THAT(message, Contains("Basis (radial/network/basis.hpp)"));
  CHECK(registry.find(radial::Slot::Basis, "test-power") == nullptr);
  require_usable(registry);
  // The same source against the installed headers loads.
  radial::Registry good;
  REQUIRE_NOTHROW(good.load_file(GOOD_PLUGIN));
  CHECK(good.find(radial::Slot::Basis, "test-power") != nullptr);
}

TEST_CASE("a short descriptor is refused with expected and found sizes") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_SIZE);
  CHECK_THAT(message, Contains(BAD_SIZE));
  CHECK_THAT(message, Contains("descriptor size"));
  CHECK_THAT(message,
             Contains("expected at least " + std::to_string(sizeof(radial::PluginDescriptor))));
  CHECK_THAT(message, Contains("found 8"));
  CHECK(registry.find(radial::Slot::Basis, "must-not-register") == nullptr);
  require_usable(registry);
}

TEST_CASE("a foreign build fingerprint is refused showing both fingerprints") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_FINGERPRINT);
  CHECK_THAT(message, Contains(BAD_FINGERPRINT));
  CHECK_THAT(message, Contains("fingerprint"));
  CHECK_THAT(message, Contains(std::string("expected \"") + RADIAL_BUILD_FINGERPRINT + "\""));
  CHECK_THAT(message, Contains("found \"gcc-1;libstdc++-cxx11abi0;boost-1_0;xtensor-0.1\""));
  CHECK(std::string(radial::framework_fingerprint()) == RADIAL_BUILD_FINGERPRINT);
  CHECK(registry.find(radial::Slot::Basis, "must-not-register") == nullptr);
  require_usable(registry);
}

TEST_CASE("a registration function throwing std::runtime_error is wrapped; nothing is kept") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_REGISTRATION_THROWS);
  CHECK_THAT(message, Contains(BAD_REGISTRATION_THROWS));
  CHECK_THAT(message, Contains("table construction failed"));
  // It registered a component before throwing: staging must have discarded it.
  CHECK(registry.find(radial::Slot::WeightPenalty, "half-registered") == nullptr);
  CHECK(registry.loaded_files().empty());
  require_usable(registry);
}

TEST_CASE("a radial::Error from registration keeps its type and gains the file name") {
  radial::Registry registry;
  try {
    registry.load_file(BAD_REGISTRATION_RADIAL_ERROR);
    FAIL("the library loaded");
  } catch (const radial::ParameterError& error) {
    CHECK_THAT(error.what(), Contains(BAD_REGISTRATION_RADIAL_ERROR));
    CHECK_THAT(error.what(), Contains("parameter 'alpha' declared twice"));
  }
  CHECK(registry.find(radial::Slot::WeightPenalty, "half-registered") == nullptr);
  require_usable(registry);
}

TEST_CASE("a factory's failures are reported naming the plugin") {
  radial::Registry registry;
  registry.load_file(BAD_FACTORY_THROWS);
  const auto& info = registry.require(radial::Slot::Centres, "test-factory-throws");
  const auto params = [&](const char* mode) {
    return radial::validate_params(info.params, {{"mode", std::string(mode)}}, "test");
  };

  try {
    registry.make_centre_learner("test-factory-throws", params("std"));
    FAIL("the factory did not throw");
  } catch (const radial::PluginError& error) {
    CHECK_THAT(error.what(), Contains("test-factory-throws"));
    CHECK_THAT(error.what(), Contains(BAD_FACTORY_THROWS));
    CHECK_THAT(error.what(), Contains("out of widths"));
  }
  // A framework exception passes through unchanged.
  CHECK_THROWS_MATCHES(registry.make_centre_learner("test-factory-throws", params("radial")),
                       radial::ShapeError,
                       Catch::Matchers::Message("centres must be 2-dimensional"));
  CHECK_THROWS_WITH(registry.make_centre_learner("test-factory-throws", params("null")),
                    Contains("returned no object"));
  require_usable(registry);
}

TEST_CASE("a text file named lib*.so is refused naming the file") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_NOT_A_LIBRARY);
  CHECK_THAT(message, Contains(BAD_NOT_A_LIBRARY));
  CHECK_THAT(message, Contains("cannot be loaded as a shared library"));
  CHECK_THAT(message, Contains("invalid ELF header") || Contains("file too short"));
  require_usable(registry);
}

TEST_CASE("a library with an undefined symbol is refused at load, naming the symbol") {
  radial::Registry registry;
  const std::string message = refusal(registry, BAD_UNDEFINED_SYMBOL);
  CHECK_THAT(message, Contains(BAD_UNDEFINED_SYMBOL));
  CHECK_THAT(message, Contains("radial_function_from_another_version"));
  require_usable(registry);
}

TEST_CASE("a component id registered from a second file is refused naming both files") {
  radial::Registry registry;
  registry.load_file(GOOD_PLUGIN);
  const std::string message = refusal(registry, DUPLICATE_PLUGIN);
  CHECK_THAT(message, Contains(DUPLICATE_PLUGIN));
  CHECK_THAT(message, Contains(GOOD_PLUGIN));
  CHECK_THAT(message, Contains("'test-power'"));
  CHECK(registry.loaded_files().size() == 1);
  // Loading the same file again is not a duplicate: it is the same library.
  CHECK_NOTHROW(registry.load_file(GOOD_PLUGIN));
  CHECK(registry.loaded_files().size() == 1);
}

TEST_CASE("load_folder stops at the first bad library and leaves the registry as it was") {
  radial::Registry registry;
  // Sorted by name, libradial-bad-abi.so is the first library in the folder.
  CHECK_THROWS_WITH(registry.load_folder(BAD_PLUGIN_DIR), Contains("libradial-bad-abi.so"));
  CHECK(registry.components().empty());
  CHECK(registry.loaded_files().empty());
  require_usable(registry);
}

TEST_CASE("unknown ids get a did-you-mean, and a plugin of another slot is named as such") {
  radial::Registry registry;
  registry.load_file(GOOD_PLUGIN);
  CHECK_THROWS_WITH(registry.require(radial::Slot::Basis, "test-powr"),
                    Contains("unknown basis plugin 'test-powr'") &&
                        Contains("did you mean 'test-power'?"));
  CHECK_THROWS_AS(registry.make_basis("nothing-like-it", {}), radial::InputError);
  CHECK_THROWS_WITH(registry.require(radial::Slot::Centres, "test-power"),
                    Contains("'test-power' is a basis plugin, not a centres plugin"));
  const auto* info = registry.find(radial::Slot::Basis, "test-power");
  REQUIRE(info != nullptr);
  CHECK(info->library == GOOD_PLUGIN);
  CHECK(info->version == "1.0.0");
  CHECK(registry.ids(radial::Slot::Basis) == std::vector<std::string>{"test-power"});
}

TEST_CASE("an object keeps its library loaded after the registry is gone") {
  REQUIRE_FALSE(library_is_loaded(GOOD_PLUGIN));
  std::shared_ptr<radial::Basis> basis;
  {
    radial::Registry registry;
    registry.load_file(GOOD_PLUGIN);
    basis = registry.make_basis(
        "test-power", radial::validate_params(
                          registry.require(radial::Slot::Basis, "test-power").params, {}, "test"));
  }
  REQUIRE(library_is_loaded(GOOD_PLUGIN));
  radial::Matrix r2 = {{16.0}};
  basis->map(r2);  // plugin code, still mapped
  CHECK(r2(0, 0) == Approx(4.0));
  basis.reset();  // the last owner: the library may go now
  CHECK_FALSE(library_is_loaded(GOOD_PLUGIN));
}

namespace {

class ZeroPenalty final : public radial::WeightPenalty {
 public:
  double penalty(const radial::Matrix&) const override { return 0; }
  void add_gradient(const radial::Matrix&, radial::Matrix&) const override {}
  void add_hessian(const radial::Matrix&, radial::Matrix&) const override {}
};

void register_without_factory(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "zero";
  registrar.add_weight_penalty(std::move(info), nullptr);
}

void register_zero_as_test_power(radial::Registrar& registrar) {
  radial::ComponentInfo info;
  info.id = "test-power";
  registrar.add_weight_penalty(std::move(info), [](const radial::Params&) {
    return std::make_unique<ZeroPenalty>();
  });
}

}  // namespace

TEST_CASE("built-in components go through the same checks as libraries") {
  radial::Registry registry;
  CHECK_THROWS_WITH(registry.add_builtin(register_without_factory, "builtin-a"),
                    Contains("builtin-a") && Contains("without a factory"));
  CHECK(registry.components().empty());

  registry.add_builtin(register_zero_as_test_power, "builtin-b");
  const auto* info = registry.find(radial::Slot::WeightPenalty, "test-power");
  REQUIRE(info != nullptr);
  CHECK(info->library == "builtin-b");
  CHECK(registry.make_weight_penalty("test-power", {})->penalty(radial::Matrix{{1.0}}) == 0.0);
  // Ids are unique across slots: the basis "test-power" of a library is refused now.
  const std::string message = refusal(registry, GOOD_PLUGIN);
  CHECK_THAT(message, Contains("already registered from builtin-b"));
}

TEST_CASE("component descriptions stay valid while more plugins load") {
  radial::Registry registry;
  registry.load_file(GOOD_PLUGIN);
  const radial::ComponentInfo* first = registry.find(radial::Slot::Basis, "test-power");
  REQUIRE(first != nullptr);
  for (const char* file : {BAD_FACTORY_THROWS, BAD_ABI, BAD_NO_ENTRY}) {
    try {
      registry.load_file(file);
    } catch (const radial::PluginError&) {
      // refusals are tested above; here only the survivors matter
    }
  }
  CHECK(registry.find(radial::Slot::Basis, "test-power") == first);
  CHECK(first->id == "test-power");
  CHECK(first->params.size() == 1);
  CHECK(registry.components().size() == 2);
}
