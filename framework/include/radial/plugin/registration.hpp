#pragma once
// What a plugin registers: its slot, its ComponentInfo and the factory of its component, handed
// to the Registrar its registration function receives (radial/sdk/plugin.hpp writes that
// function). The host's side, which loads libraries and makes components, is the loader
// (radial/plugin/loader.hpp), which a plugin never needs.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "radial/network/basis.hpp"
#include "radial/network/centre_learner.hpp"
#include "radial/network/kernel_prior.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/network/refiner.hpp"
#include "radial/core/params.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial {

// The two priors are two slots, so that a pipeline may name one of each and a plugin implements
// only its own interface: WeightPenalty (output weights, used by output layers) and KernelPrior
// (kernels and mixing weights, used by class-aware centre learners).
// Refine trains the assembled network as a whole after the two-stage fit (radial/network/refiner.hpp).
enum class Slot { Basis, Centres, Output, WeightPenalty, KernelPrior, Refine };

// Every slot, in the pipeline's order: the one list that the pipeline reader, the trainer, the
// CLI and the experiments walk (Pipeline::component(Slot) gives a pipeline's component of each).
inline constexpr Slot all_slots[] = {Slot::Basis,         Slot::Centres,     Slot::Output,
                                     Slot::WeightPenalty, Slot::KernelPrior, Slot::Refine};

// What a component does that the trainer must know before it makes one, declared at
// registration (so the trainer and the selection never make an instance just to ask). Each is
// the answer of the interface's virtual of the same name for the same parameters, which the
// conformance kit checks (radial/sdk/conformance.hpp). Fields of other slots stay at their
// defaults, which are the interfaces' defaults.
struct Capabilities {
  // Basis: Basis::density(), Basis::gaussian_activation(), Basis::width_scale_selectable().
  bool density = false;
  bool gaussian_activation = false;
  bool width_scale_selectable = false;
  // CentreLearner::uses_basis().
  bool uses_basis = false;
  // OutputLayer::selectable(), OutputLayer::least_squares(), OutputLayer::side_conditions().
  bool selectable = true;
  bool least_squares = false;
  bool side_conditions = false;
};

// The capabilities of a component made from validated `params` (a plain function, so that
// copying a ComponentInfo never runs plugin code).
using DeclaredCapabilities = Capabilities (*)(const Params& params);

// "basis", "centres", "output", "weight-penalty", "kernel-prior", "refine" (the pipeline's
// table names)
const char* to_string(Slot slot);
// The slot whose name (to_string) is `name`, or empty.
std::optional<Slot> slot_named(const std::string& name);
// True for the slots every pipeline names (basis, centres, output); the rest are optional.
bool slot_required(Slot slot);

// What a component says about itself; shown by `radial plugins show ID` and in the docs.
// A plugin library leaves slot, id and version empty: the Registrar call sets the slot, and the
// id and version come from RADIAL_PLUGIN, so each is written once.
struct ComponentInfo {
  Slot slot = Slot::Basis;  // set by the Registrar::add_* call
  std::string id;           // e.g. "kmeans"; empty in a library = RADIAL_PLUGIN's id
  std::string version;      // e.g. "1.0.0"; empty in a library = RADIAL_PLUGIN's version
  std::string summary;  // one line
  std::string paper;    // where the algorithm comes from, with equation numbers
  ParamTable params;
  std::string library;  // file it was loaded from (filled by the registry)
  // Null: Capabilities{} whatever the parameters (radial/sdk/plugin.hpp fills it).
  DeclaredCapabilities capabilities = nullptr;
};

template <class T>
using Factory = std::function<std::unique_ptr<T>(const Params&)>;

// Handed to a plugin's register_components(). One plugin library registers one component.
class Registrar {
 public:
  virtual ~Registrar();
  virtual void add_basis(ComponentInfo info, Factory<Basis> make) = 0;
  virtual void add_centre_learner(ComponentInfo info, Factory<CentreLearner> make) = 0;
  virtual void add_output_layer(ComponentInfo info, Factory<OutputLayer> make) = 0;
  virtual void add_weight_penalty(ComponentInfo info, Factory<WeightPenalty> make) = 0;
  virtual void add_kernel_prior(ComponentInfo info, Factory<KernelPrior> make) = 0;
  virtual void add_refiner(ComponentInfo info, Factory<Refiner> make) = 0;
};

}  // namespace radial
