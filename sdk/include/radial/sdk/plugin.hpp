#pragma once
// The one macro a Radial plugin needs, and the helpers that keep its registration short.
//
//   #include <radial/sdk/plugin.hpp>
//
//   namespace my_plugin {
//   // kmeans_table() returns the radial::OptionTable<KMeansOptions> (radial/core/option_table.hpp)
//   RADIAL_PLUGIN_COMPONENT("kmeans", "1.0.0", KMeans,
//                           "one line", "paper, equations", kmeans_table())
//   }  // namespace my_plugin
//
// One plugin library registers one component, so its id, version, class, description and
// parameter table are the whole registration; the slot is the interface the class implements.
// Leave the table out for a component without parameters. A component that does what the
// trainer must know before it makes one (radial/plugin/loader.hpp's Capabilities: an output layer
// that is not selectable, a least-squares layer, a density basis, ...) declares it last, as a
// function of its validated parameters:
//
//   RADIAL_PLUGIN_COMPONENT("bayes", "1.0.0", BayesOutput, "one line", "paper", bayes_table(),
//                           [](const radial::Params&) {
//                             radial::Capabilities c;
//                             c.selectable = false;
//                             return c;
//                           })
//
// (the conformance kit checks that it equals the instance's answers). A learner derived from
// SupervisedCentreLearner declares uses_basis by its type. A registration that needs more
// writes its own function for RADIAL_PLUGIN(id, version, register_fn), e.g. with sdk::add<T>.
//
// It exports a single unmangled Boost.DLL alias, `radial_plugin_v1`, returning a constant
// PluginDescriptor. Nothing runs at load time: the descriptor is constant-initialised and the
// host calls the registration function only after checking ABI version, size and fingerprint.

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include <boost/dll/alias.hpp>

#include "radial/network/centre_learner.hpp"
#include "radial/plugin/fingerprint.hpp"
#include "radial/plugin/interface_layout.hpp"
#include "radial/core/option_table.hpp"
#include "radial/plugin/plugin_abi.hpp"
#include "radial/plugin/registration.hpp"

#define RADIAL_PLUGIN(ID, VERSION, REGISTER_FUNCTION)                                 \
  namespace radial_plugin_entry {                                                     \
  constexpr ::radial::PluginDescriptor descriptor{                                    \
      ::radial::plugin_abi_version, sizeof(::radial::PluginDescriptor),               \
      RADIAL_BUILD_FINGERPRINT, ID, VERSION, &REGISTER_FUNCTION,                      \
      &::radial::interface_layout};                                                   \
  inline const ::radial::PluginDescriptor* entry() { return &descriptor; }            \
  }                                                                                   \
  BOOST_DLL_ALIAS(radial_plugin_entry::entry, radial_plugin_v1)

// RADIAL_PLUGIN with the registration of its one component: sdk::add<TYPE>(registrar, summary,
// paper[, table]). Write it once per library, in the plugin's own namespace (names resolve
// there) or at global scope, but not in an unnamed one: the exported alias needs linkage.
#define RADIAL_PLUGIN_COMPONENT(ID, VERSION, TYPE, ...)                              \
  namespace radial_plugin_entry {                                                     \
  inline void add_component(::radial::Registrar& registrar) {                         \
    ::radial::sdk::add<TYPE>(registrar, __VA_ARGS__);                                 \
  }                                                                                   \
  }                                                                                   \
  RADIAL_PLUGIN(ID, VERSION, radial_plugin_entry::add_component)

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

// The capabilities T's type declares by itself: uses_basis for a SupervisedCentreLearner; null
// (Capabilities{}) for the rest.
template <class T>
DeclaredCapabilities type_capabilities() {
  if constexpr (std::is_base_of_v<SupervisedCentreLearner, T>) {
    return [](const Params&) {
      Capabilities c;
      c.uses_basis = true;
      return c;
    };
  } else {
    return nullptr;
  }
}

// Hands `make` to the Registrar call of the slot whose interface T implements, with the
// capabilities its type declares unless `info` declares them.
template <class T, class Make>
void add_to_slot(Registrar& registrar, ComponentInfo info, Make make) {
  if (!info.capabilities) info.capabilities = type_capabilities<T>();
  if constexpr (std::is_base_of_v<Basis, T>) {
    registrar.add_basis(std::move(info), std::move(make));
  } else if constexpr (std::is_base_of_v<CentreLearner, T>) {
    registrar.add_centre_learner(std::move(info), std::move(make));
  } else if constexpr (std::is_base_of_v<OutputLayer, T>) {
    registrar.add_output_layer(std::move(info), std::move(make));
  } else if constexpr (std::is_base_of_v<WeightPenalty, T>) {
    registrar.add_weight_penalty(std::move(info), std::move(make));
  } else if constexpr (std::is_base_of_v<KernelPrior, T>) {
    registrar.add_kernel_prior(std::move(info), std::move(make));
  } else {
    static_assert(std::is_base_of_v<Refiner, T>,
                  "T implements none of Basis, CentreLearner, OutputLayer, WeightPenalty, "
                  "KernelPrior, Refiner");
    registrar.add_refiner(std::move(info), std::move(make));
  }
}

// Registers T made from `table` (describe + from_table), in the slot of its interface.
template <class T, class Options>
void add(Registrar& registrar, std::string summary, std::string paper,
         const OptionTable<Options>& table) {
  add_to_slot<T>(registrar, describe(std::move(summary), std::move(paper), table),
                 from_table<T>(table));
}

// Registers T without parameters (describe + without_params), in the slot of its interface.
template <class T>
void add(Registrar& registrar, std::string summary, std::string paper) {
  add_to_slot<T>(registrar, describe(std::move(summary), std::move(paper)), without_params<T>());
}

// The same, declaring what T does (radial/plugin/loader.hpp's Capabilities) for its parameters.
template <class T, class Options>
void add(Registrar& registrar, std::string summary, std::string paper,
         const OptionTable<Options>& table, DeclaredCapabilities capabilities) {
  ComponentInfo info = describe(std::move(summary), std::move(paper), table);
  info.capabilities = capabilities;
  add_to_slot<T>(registrar, std::move(info), from_table<T>(table));
}

template <class T>
void add(Registrar& registrar, std::string summary, std::string paper,
         DeclaredCapabilities capabilities) {
  ComponentInfo info = describe(std::move(summary), std::move(paper));
  info.capabilities = capabilities;
  add_to_slot<T>(registrar, std::move(info), without_params<T>());
}

}  // namespace radial::sdk
