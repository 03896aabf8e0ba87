#pragma once
// The one C-layout structure a plugin library exports (through the alias `radial_plugin_v1`,
// see radial/sdk/plugin.hpp) and the host checks before anything else in the library runs.
//
// Versioning rule (as LLVM's PassPluginLibraryInfo): bump plugin_abi_version whenever a field
// of PluginDescriptor changes meaning or order, or when any interface in radial/*.hpp changes in
// a way an old plugin could not survive (a virtual added, removed or reordered; a value type's
// layout changed). Appending a field only grows descriptor_size: the host requires at least the
// size it knows.

#include <cstdint>

namespace radial {

class Registrar;
struct InterfaceLayout;

// 2: the one prior interface split into WeightPenalty and KernelPrior (two slots, two
//    Registrar calls).
// 3: Basis::differentiable, map_derivative and shapes_trainable, the Refine slot
//    (Registrar::add_refiner) for whole-network training, and OutputLayer::working_memory.
// 4: FitContext::component (the framework names the component being fitted; warn() without
//    an id), and Basis::density (missing inputs integrated out of a density basis).
// 5: Basis::gaussian_activation (the expected activation over missing inputs).
// 6: WeightPenalty::prepare (the penalty sees the fitted centres and basis: the RKHS norm)
//    and WeightPenalty::add_hessian_product (Newton-CG output solves).
// 7: Basis::polynomial (the polynomial term of conditionally positive definite bases),
//    OutputLayer::side_conditions and OutputLayer::held_out_error, the descriptor's
//    interface_layout (radial/plugin/interface_layout.hpp), appended; CentreLearner::uses_basis and
//    fit_on_basis (a supervised learner sees the pipeline's basis through
//    radial/network/candidate_basis.hpp), SupervisedCentreLearner.
// 8: ComponentInfo::capabilities (what a component does, declared at registration:
//    radial/plugin/loader.hpp's Capabilities) and ParamSpec::role (the parameters the trainer's
//    selection chooses, found by role: width scale, centre count, ridge strength).
// 9: OutputWeights::training_outputs (the training rows' outputs when the output layer made
//    them, for the training metrics).
inline constexpr std::uint32_t plugin_abi_version = 9;
inline constexpr const char* plugin_entry_alias = "radial_plugin_v1";

struct PluginDescriptor {
  std::uint32_t abi_version;      // must equal the host's plugin_abi_version; read first
  std::uint32_t descriptor_size;  // sizeof(PluginDescriptor) as the plugin saw it
  const char* fingerprint;        // RADIAL_BUILD_FINGERPRINT as the plugin saw it
  const char* id;                 // the component id, e.g. "kmeans"
  const char* version;            // the plugin's own version, e.g. "1.0.0"
  // Called once by the host, on one thread, after the checks pass. Registers the component(s)
  // with their parameter tables and factories. Must not keep references to the Registrar.
  void (*register_components)(Registrar& registrar);
  // The layout of the plugin interfaces as the plugin was compiled (radial/plugin/interface_layout.hpp;
  // RADIAL_PLUGIN fills it): the host refuses a plugin whose layout differs from its own, which
  // a copied header changed without a plugin_abi_version bump. Called once, before
  // register_components; null is refused.
  InterfaceLayout (*interface_layout)();
};

// The signature of the exported entry point.
using PluginEntry = const PluginDescriptor*();

}  // namespace radial
