#pragma once
// The one macro a Radial plugin needs.
//
//   #include <radial/sdk/plugin.hpp>
//
//   static void register_kmeans(radial::Registrar& r) {
//     r.add_centre_learner(info(), [](const radial::Params& p) {
//       return std::make_unique<KMeans>(p);
//     });
//   }
//   RADIAL_PLUGIN("kmeans", "1.0.0", register_kmeans)
//
// It exports a single unmangled Boost.DLL alias, `radial_plugin_v1`, returning a constant
// PluginDescriptor. Nothing runs at load time: the descriptor is constant-initialised and the
// host calls the registration function only after checking ABI version, size and fingerprint.

#include <boost/dll/alias.hpp>

#include "radial/fingerprint.hpp"
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
