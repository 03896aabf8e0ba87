#pragma once
// The plugin registry and loader.
//
// Plugins are loaded once, at start, on one thread. Each library's descriptor is checked (ABI
// version, descriptor size, build fingerprint) and a mismatch is refused with a PluginError that
// names the file, what was expected and what was found. Every object a plugin makes is handed
// out in a shared_ptr whose deleter holds that plugin's library, so no library is unloaded while
// anything made by it lives; the registry itself holds the libraries of its factories.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "radial/basis.hpp"
#include "radial/centre_learner.hpp"
#include "radial/kernel_prior.hpp"
#include "radial/output_layer.hpp"
#include "radial/refiner.hpp"
#include "radial/params.hpp"
#include "radial/weight_penalty.hpp"

namespace radial {

// The two priors are two slots, so that a pipeline may name one of each and a plugin implements
// only its own interface: WeightPenalty (output weights, used by output layers) and KernelPrior
// (kernels and mixing weights, used by class-aware centre learners).
// Refine trains the assembled network as a whole after the two-stage fit (radial/refiner.hpp).
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

// A library of the search path that load_default() could not load (a stale build, another ABI,
// a broken registration): the host goes on without it, `radial plugins list` reports it, and a
// pipeline naming its component is refused with this file and message.
struct PluginLoadFailure {
  std::filesystem::path file;
  std::string message;  // the PluginError's, which names the file
  std::string id;       // the id its descriptor or file name (libradial-<slot>-<id>.so) gives; may be empty
};

// The slot a plugin library's file name states, libradial-<slot>-<id>.so as radial_add_plugin
// names it, and the id after it; false when the name does not follow that form.
bool slot_from_file_name(const std::filesystem::path& file, Slot& slot, std::string& id);

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The folders searched by load_default(), in order: each entry of RADIAL_PLUGIN_PATH
  // (colon-separated), the plugin folder beside the running program (<bin>/../lib/radial/plugins,
  // which is both the build tree's and an installation's layout), and the configured install
  // prefix.
  static std::vector<std::filesystem::path> search_path();

  // Loads every plugin library in the search path. A library that fails its checks (a
  // PluginError) is left out and recorded in load_failures(), so one stale library never
  // disables the host for pipelines that do not use it; the registry is left as it was before
  // that library. Missing folders are skipped; a library whose id was already loaded from an
  // earlier folder is skipped too (earlier folders shadow later ones, as in PATH), so
  // RADIAL_PLUGIN_PATH can override.
  void load_default();
  // The libraries load_default() left out, in the order met.
  const std::vector<PluginLoadFailure>& load_failures() const;
  // Loads every lib*.so in `folder` (sorted by name, for a deterministic order).
  void load_folder(const std::filesystem::path& folder);
  // Loads one library. A component id already registered from another file is refused, and so
  // is a library whose file name states another slot than the one it registers in
  // (libradial-centres-x.so registering a basis). Throws PluginError.
  void load_file(const std::filesystem::path& file);
  // Registers components from a function linked into the program (tests, static builds).
  void add_builtin(void (*register_components)(Registrar&), const std::string& origin);

  const ComponentInfo* find(Slot slot, const std::string& id) const;
  std::vector<const ComponentInfo*> components() const;  // sorted by slot, then id
  std::vector<std::string> ids(Slot slot) const;
  std::vector<std::filesystem::path> loaded_files() const;

  // Validated params in, object out; the object keeps its library loaded. Throws InputError for
  // an unknown id (with "did you mean"), and PluginError when the factory fails (a plugin's
  // non-Radial exception is wrapped, naming the plugin).
  std::shared_ptr<Basis> make_basis(const std::string& id, const Params& params) const;
  std::shared_ptr<CentreLearner> make_centre_learner(const std::string& id,
                                                     const Params& params) const;
  std::shared_ptr<OutputLayer> make_output_layer(const std::string& id,
                                                 const Params& params) const;
  std::shared_ptr<WeightPenalty> make_weight_penalty(const std::string& id,
                                                     const Params& params) const;
  std::shared_ptr<KernelPrior> make_kernel_prior(const std::string& id,
                                                 const Params& params) const;
  std::shared_ptr<Refiner> make_refiner(const std::string& id, const Params& params) const;

  // find() that throws InputError with unknown_plugin_message(slot, id).
  const ComponentInfo& require(Slot slot, const std::string& id) const;

  // What the component `id` of `slot` made from `params` (validated) declares it does
  // (ComponentInfo::capabilities); InputError for an unknown id, as require().
  Capabilities capabilities(Slot slot, const std::string& id, const Params& params) const;

  // The one message for an id that is no `slot` plugin: "unknown <name> plugin 'x'", then
  // "('x' is a basis plugin, not a <name> plugin)" or "(did you mean 'y'?)", then the plugins
  // of the slot (or that none is loaded). `name`: how the user wrote the slot (a pipeline's
  // table), default the slot's own name.
  std::string unknown_plugin_message(Slot slot, const std::string& id,
                                     const std::string& name = {}) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace radial
