#pragma once
// The one macro a Radial plugin needs, and the helpers that keep its registration short.
//
//   #include <radial/sdk/plugin.hpp>
//
//   static void register_kmeans(radial::Registrar& r) {
//     const radial::OptionTable<KMeansOptions> table = kmeans_table();  // radial/option_table.hpp
//     r.add_centre_learner(radial::sdk::describe("one line", "paper, equations", table),
//                          radial::sdk::from_table<KMeans>(table));
//   }
//   RADIAL_PLUGIN("kmeans", "1.0.0", register_kmeans)
//
// It exports a single unmangled Boost.DLL alias, `radial_plugin_v1`, returning a constant
// PluginDescriptor. Nothing runs at load time: the descriptor is constant-initialised and the
// host calls the registration function only after checking ABI version, size and fingerprint.

#include <memory>
#include <string>
#include <utility>

#include <boost/dll/alias.hpp>

#include "radial/fingerprint.hpp"
#include "radial/option_table.hpp"
#include "radial/plugin_abi.hpp"
#include "radial/registry.hpp"

#define RADIAL_PLUGIN(ID, VERSION, REGISTER_FUNCTION)                                 \
  namespace radial_plugin_entry {                                                     \
  constexpr ::radial::PluginDescriptor descriptor{                                    \
      ::radial::plugin_abi_version, sizeof(::radial::PluginDescriptor),               \
      RADIAL_BUILD_FINGERPRINT, ID, VERSION, &REGISTER_FUNCTION};                     \
  inline const ::radial::PluginDescriptor* entry() { return &descriptor; }            \
  }                                                                                   \
  BOOST_DLL_ALIAS(radial_plugin_entry::entry, radial_plugin_v1)

namespace radial::sdk {

// What a component says about itself. Slot, id and version stay empty: the Registrar call and
// RADIAL_PLUGIN fill them, so each is written once.
inline ComponentInfo describe(std::string summary, std::string paper, ParamTable params = {}) {
  ComponentInfo info;
  info.summary = std::move(summary);
  info.paper = std::move(paper);
  info.params = std::move(params);
  return info;
}

// The same with the parameters of an option table, each default read from its options struct.
template <class Options>
ComponentInfo describe(std::string summary, std::string paper, const OptionTable<Options>& table) {
  return describe(std::move(summary), std::move(paper), table.params());
}

// The factory of the SDK's constructor convention: `table` reads the validated Params into the
// plugin's options struct, and T's constructor only stores it.
template <class T, class Options>
auto from_table(OptionTable<Options> table) {
  return [table = std::move(table)](const Params& params) {
    return std::make_unique<T>(table.read(params));
  };
}

// The factory of a component without parameters.
template <class T>
auto without_params() {
  return [](const Params&) { return std::make_unique<T>(); };
}

}  // namespace radial::sdk
