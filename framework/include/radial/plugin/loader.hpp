#pragma once
// The plugin registry and loader: the host's side of plugins (a plugin registers through
// radial/plugin/registration.hpp and never sees this header).
//
// Plugins are loaded once, at start, on one thread. Each library's descriptor is checked (ABI
// version, descriptor size, build fingerprint) and a mismatch is refused with a PluginError that
// names the file, what was expected and what was found. Every object a plugin makes is handed
// out in a shared_ptr whose deleter holds that plugin's library, so no library is unloaded while
// anything made by it lives; the registry itself holds the libraries of its factories.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "radial/plugin/registration.hpp"

namespace radial {

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
