// The plugin registry and loader (radial/plugin/loader.hpp).
//
// Lifetime rule (Boost.DLL missuses / tutorial 8): every object whose destruction or call runs
// plugin code -- a factory std::function, an object a factory made -- is owned together with a
// shared_ptr to its library, declared so that the library is released last.
#include "radial/plugin/loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <system_error>
#include <utility>
#include <variant>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include "radial/core/errors.hpp"
#include "radial/plugin/fingerprint.hpp"
#include "radial/plugin/interface_layout.hpp"
#include "radial/plugin/plugin_abi.hpp"
#include "radial/core/text.hpp"
#include "radial/core/version.hpp"

namespace radial {

namespace fs = std::filesystem;
using Library = std::shared_ptr<boost::dll::shared_library>;

namespace {

using AnyFactory = std::variant<Factory<Basis>, Factory<CentreLearner>, Factory<OutputLayer>,
                                Factory<WeightPenalty>, Factory<KernelPrior>, Factory<Refiner>>;

// One registered component. `library` is declared first so it is destroyed last: the factory
// (a std::function whose manager lives in the plugin) must go before the library is unloaded.
struct Entry {
  Library library;  // null for built-in components
  ComponentInfo info;
  AnyFactory make;
};

// Collects what a registration function adds; committed only when the whole library succeeded.
class StagingRegistrar final : public Registrar {
 public:
  std::vector<Entry> staged;

  void add_basis(ComponentInfo info, Factory<Basis> make) override {
    add(Slot::Basis, std::move(info), std::move(make));
  }
  void add_centre_learner(ComponentInfo info, Factory<CentreLearner> make) override {
    add(Slot::Centres, std::move(info), std::move(make));
  }
  void add_output_layer(ComponentInfo info, Factory<OutputLayer> make) override {
    add(Slot::Output, std::move(info), std::move(make));
  }
  void add_weight_penalty(ComponentInfo info, Factory<WeightPenalty> make) override {
    add(Slot::WeightPenalty, std::move(info), std::move(make));
  }
  void add_kernel_prior(ComponentInfo info, Factory<KernelPrior> make) override {
    add(Slot::KernelPrior, std::move(info), std::move(make));
  }
  void add_refiner(ComponentInfo info, Factory<Refiner> make) override {
    add(Slot::Refine, std::move(info), std::move(make));
  }

 private:
  template <class F>
  void add(Slot slot, ComponentInfo info, F make) {
    if (!make) {
      throw PluginError("component '" + info.id + "' (" + to_string(slot) +
                        ") was registered without a factory");
    }
    info.slot = slot;
    staged.push_back(Entry{nullptr, std::move(info), AnyFactory(std::move(make))});
  }
};

using text::in_quotes;
using text::join;

// Boost.DLL reports a failed dlopen as a bare errno; the dynamic loader's own text (an
// undefined symbol, an invalid ELF header) is what the user needs, so ask for it again.
std::string loader_diagnostic(const fs::path& file, const std::error_code& ec) {
  dlerror();  // clear any stale message
  if (void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    dlclose(handle);
    return ec.message();
  }
  const char* text = dlerror();
  return text ? std::string(text) : ec.message();
}

const char* rebuild_advice =
    " Rebuild the plugin against this Radial installation (same compiler, Boost and xtensor), "
    "or remove it from the plugin path.";

}  // namespace

struct Registry::Impl {
  // Declared before `entries`: members are destroyed in reverse order, so every factory is gone
  // before the registry's own references to the libraries are dropped.
  std::vector<std::pair<fs::path, Library>> libraries;
  // A deque, so the ComponentInfo pointers handed out stay valid while more plugins load.
  std::deque<Entry> entries;
  std::vector<PluginLoadFailure> failures;  // load_default()'s libraries left out

  const Entry* find(Slot slot, const std::string& id) const {
    for (const auto& entry : entries) {
      if (entry.info.slot == slot && entry.info.id == id) return &entry;
    }
    return nullptr;
  }
  const Entry* find_any(const std::string& id) const {
    for (const auto& entry : entries) {
      if (entry.info.id == id) return &entry;
    }
    return nullptr;
  }
  bool has_file(const fs::path& file) const {
    for (const auto& loaded : libraries) {
      if (loaded.first == file) return true;
    }
    return false;
  }

  // Runs a registration function, checks what it registered, and commits it all or nothing.
  void register_from(void (*register_components)(Registrar&), const Library& library,
                     const std::string& origin, const char* expected_id,
                     const char* plugin_version) {
    StagingRegistrar staging;
    const std::string prefix = origin + ": ";
    try {
      register_components(staging);
    } catch (const Error& error) {
      rethrow_prefixed(error, prefix + "registration failed: ");
    } catch (const std::exception& error) {
      throw PluginError(prefix + "registration failed: the plugin threw: " + error.what() +
                        ". A plugin's registration function must only describe its components; "
                        "fix the plugin.");
    } catch (...) {
      throw PluginError(prefix +
                        "registration failed: the plugin threw a non-standard exception. Fix the "
                        "plugin.");
    }

    if (staging.staged.empty()) {
      throw PluginError(prefix + "the registration function registered no component; expected "
                                 "one call of Registrar::add_*(). Fix the plugin.");
    }
    // The file name's slot (libradial-<slot>-<id>.so, radial_add_plugin's naming) must be the
    // slot registered in: a mismatch is a copied template left half renamed, which a user
    // would otherwise look for under the wrong slot without a word.
    Slot named_slot = Slot::Basis;
    std::string named_id;
    if (library && slot_from_file_name(origin, named_slot, named_id)) {
      for (const auto& entry : staging.staged)
        if (entry.info.slot != named_slot)
          throw PluginError(prefix + "the file name says a " + to_string(named_slot) +
                            " plugin (libradial-" + to_string(named_slot) + "-...), but the "
                            "library registers a " + to_string(entry.info.slot) +
                            " component; name the target radial-" + to_string(entry.info.slot) +
                            "-<id> in radial_add_plugin(), or register the component in the "
                            "slot its name says.");
    }
    std::set<std::string> seen;
    for (auto& entry : staging.staged) {
      ComponentInfo& info = entry.info;
      if (info.id.empty() && expected_id) info.id = expected_id;
      if (info.id.empty()) {
        throw PluginError(prefix + "a " + to_string(info.slot) +
                          " component was registered with an empty id; set ComponentInfo::id.");
      }
      if (expected_id && info.id != expected_id) {
        throw PluginError(prefix + "the descriptor names plugin " + in_quotes(expected_id) +
                          " but the registered " + to_string(info.slot) + " component is " +
                          in_quotes(info.id) + "; leave ComponentInfo::id empty (it is "
                          "RADIAL_PLUGIN's id) or make the two agree.");
      }
      if (!seen.insert(info.id).second) {
        throw PluginError(prefix + "component " + in_quotes(info.id) + " is registered twice.");
      }
      if (const Entry* existing = find_any(info.id)) {
        throw PluginError(prefix + "component id " + in_quotes(info.id) + " (" +
                          to_string(info.slot) + ") is already registered from " +
                          existing->info.library + " (" + to_string(existing->info.slot) +
                          "); component ids must be unique. Remove one of the two libraries "
                          "from the plugin path.");
      }
      if (info.version.empty() && plugin_version) info.version = plugin_version;
      info.library = origin;
      entry.library = library;
    }
    for (auto& entry : staging.staged) entries.push_back(std::move(entry));
  }

  template <class T>
  std::shared_ptr<T> make(Slot slot, const std::string& id, const Params& params,
                          const Registry& registry) const {
    registry.require(slot, id);
    const Entry& entry = *find(slot, id);
    const auto& factory = std::get<Factory<T>>(entry.make);
    const std::string who = std::string(to_string(slot)) + " plugin " + in_quotes(id) + " (" +
                            entry.info.library + ")";
    std::unique_ptr<T> made;
    try {
      made = factory(params);
    } catch (const Error&) {
      throw;  // already a framework type, with its own message
    } catch (const std::exception& error) {
      throw PluginError(who + " failed to make its component: " + error.what());
    } catch (...) {
      throw PluginError(who + " failed to make its component: a non-standard exception");
    }
    if (!made) throw PluginError(who + " returned no object from its factory; fix the plugin.");
    // The deleter (framework code) holds the library: the object's destructor runs plugin code.
    Library library = entry.library;
    return std::shared_ptr<T>(made.release(), [library](T* object) { delete object; });
  }
};

Registry::Registry() : impl_(std::make_unique<Impl>()) {}
Registry::~Registry() = default;

std::vector<fs::path> Registry::search_path() {
  std::vector<fs::path> folders;
  const auto add = [&](fs::path folder) {
    folder = folder.lexically_normal();
    if (folder.empty()) return;
    std::error_code ec;
    for (const auto& known : folders) {
      if (known == folder || fs::equivalent(known, folder, ec)) return;
    }
    folders.push_back(folder);
  };

  if (const char* env = std::getenv("RADIAL_PLUGIN_PATH")) {
    std::string list = env;
    std::size_t start = 0;
    while (start <= list.size()) {
      const std::size_t end = std::min(list.find(':', start), list.size());
      if (end > start) add(fs::path(list.substr(start, end - start)));
      start = end + 1;
    }
  }
  std::error_code ec;
  const fs::path program = boost::dll::program_location(ec);
  if (!ec && !program.empty()) add(program.parent_path() / ".." / "lib" / "radial" / "plugins");
  add(fs::path(install_plugin_dir));
  return folders;
}

void Registry::load_default() {
  // Earlier folders take precedence (as PATH): a library providing an id already loaded from an
  // earlier folder is skipped, so RADIAL_PLUGIN_PATH can override an installed plugin. Within
  // one folder, a duplicate id is an error.
  for (const auto& folder : search_path()) {
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) continue;  // missing folders are normal
    const std::size_t before = impl_->entries.size();
    std::set<std::string> shadowed;
    for (std::size_t i = 0; i < before; ++i) shadowed.insert(impl_->entries[i].info.id);

    std::vector<fs::path> files;
    for (const auto& item : fs::directory_iterator(folder, ec)) {
      const std::string name = item.path().filename().string();
      if (name.size() > 6 && name.compare(0, 3, "lib") == 0 &&
          name.compare(name.size() - 3, 3, ".so") == 0) {
        files.push_back(item.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
      const fs::path canonical = fs::weakly_canonical(file, ec);
      if (impl_->has_file(ec ? file : canonical)) continue;
      // Peek at the descriptor id without registering: skip libraries shadowed by earlier
      // folders; anything else goes through the full checks of load_file().
      boost::dll::shared_library peek;
      std::error_code load_ec;
      peek.load(file, load_ec, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
      if (!load_ec && peek.has(plugin_entry_alias)) {
        const PluginDescriptor* descriptor =
            peek.get_alias<PluginEntry>(plugin_entry_alias)();
        if (descriptor && descriptor->abi_version == plugin_abi_version &&
            descriptor->descriptor_size >= sizeof(PluginDescriptor) && descriptor->id &&
            shadowed.count(descriptor->id)) {
          continue;
        }
      }
      try {
        load_file(file);
      } catch (const PluginError& e) {
        // Left out and recorded: pipelines that do not need it still run (load_failures()).
        PluginLoadFailure failure{file, e.what(), {}};
        Slot slot = Slot::Basis;
        if (!load_ec && peek.has(plugin_entry_alias)) {
          const PluginDescriptor* descriptor = peek.get_alias<PluginEntry>(plugin_entry_alias)();
          if (descriptor && descriptor->abi_version == plugin_abi_version &&
              descriptor->descriptor_size >= sizeof(PluginDescriptor) && descriptor->id)
            failure.id = descriptor->id;
        }
        if (failure.id.empty()) slot_from_file_name(file, slot, failure.id);
        impl_->failures.push_back(std::move(failure));
      }
    }
  }
}

const std::vector<PluginLoadFailure>& Registry::load_failures() const { return impl_->failures; }

bool slot_from_file_name(const fs::path& file, Slot& slot, std::string& id) {
  const std::string name = file.filename().string();
  const std::string head = "libradial-", tail = ".so";
  if (name.size() <= head.size() + tail.size() || name.compare(0, head.size(), head) != 0 ||
      name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
    return false;
  const std::string rest = name.substr(head.size(), name.size() - head.size() - tail.size());
  for (const Slot s : all_slots) {
    const std::string prefix = std::string(to_string(s)) + "-";
    if (rest.size() > prefix.size() && rest.compare(0, prefix.size(), prefix) == 0) {
      slot = s;
      id = rest.substr(prefix.size());
      return true;
    }
  }
  return false;
}

void Registry::load_folder(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw PluginError("plugin folder " + folder.string() + " does not exist or is not a folder");
  }
  std::vector<fs::path> files;
  for (const auto& item : fs::directory_iterator(folder, ec)) {
    const std::string name = item.path().filename().string();
    if (name.size() > 6 && name.compare(0, 3, "lib") == 0 &&
        name.compare(name.size() - 3, 3, ".so") == 0) {
      files.push_back(item.path());
    }
  }
  if (ec) throw PluginError("cannot list plugin folder " + folder.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) load_file(file);
}

void Registry::load_file(const fs::path& requested) {
  std::error_code ec;
  fs::path file = fs::weakly_canonical(requested, ec);
  if (ec) file = fs::absolute(requested);
  if (impl_->has_file(file)) return;  // the same library twice is one library
  const std::string name = file.string();

  if (!fs::is_regular_file(file, ec)) {
    throw PluginError(name + ": plugin library not found (or not a regular file)");
  }

  // RTLD_NOW: an undefined symbol (a plugin built against another framework) is reported here,
  // not as a crash at first call. RTLD_LOCAL: plugins do not see each other's symbols.
  auto library = std::make_shared<boost::dll::shared_library>();
  std::error_code load_ec;
  library->load(file, load_ec,
                boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  if (load_ec || !library->is_loaded()) {
    throw PluginError(name + ": cannot be loaded as a shared library (" +
                      loader_diagnostic(file, load_ec) +
                      "). Expected a Radial plugin built with radial_add_plugin() against this "
                      "Radial; remove other files named lib*.so from the plugin folder.");
  }
  if (!library->has(plugin_entry_alias)) {
    throw PluginError(name + ": not a Radial plugin: the entry symbol '" +
                      std::string(plugin_entry_alias) +
                      "' is missing. Export it with RADIAL_PLUGIN(id, version, register_fn) from "
                      "<radial/sdk/plugin.hpp>.");
  }

  const PluginDescriptor* descriptor = library->get_alias<PluginEntry>(plugin_entry_alias)();
  if (!descriptor) {
    throw PluginError(name + ": the entry '" + std::string(plugin_entry_alias) +
                      "' returned no descriptor.");
  }
  // Version first: the rest of the layout is only known for this version.
  if (descriptor->abi_version != plugin_abi_version) {
    throw PluginError(name + ": plugin ABI version mismatch: expected " +
                      std::to_string(plugin_abi_version) + ", found " +
                      std::to_string(descriptor->abi_version) + "." + rebuild_advice);
  }
  if (descriptor->descriptor_size < sizeof(PluginDescriptor)) {
    throw PluginError(name + ": plugin descriptor size mismatch: expected at least " +
                      std::to_string(sizeof(PluginDescriptor)) + " bytes, found " +
                      std::to_string(descriptor->descriptor_size) + "." + rebuild_advice);
  }
  const char* expected_fingerprint = RADIAL_BUILD_FINGERPRINT;
  if (!descriptor->fingerprint || std::strcmp(descriptor->fingerprint, expected_fingerprint)) {
    throw PluginError(name + ": build fingerprint mismatch: expected \"" +
                      expected_fingerprint + "\", found \"" +
                      (descriptor->fingerprint ? descriptor->fingerprint : "(null)") + "\"." +
                      rebuild_advice);
  }
  // A plugin compiled against interface headers of another layout (a copied header with a
  // virtual added, without a plugin_abi_version bump) would call the wrong functions.
  if (!descriptor->interface_layout)
    throw PluginError(name + ": the descriptor has no interface layout; declare the plugin "
                      "with RADIAL_PLUGIN(id, version, register_fn) from <radial/sdk/plugin.hpp>." +
                      rebuild_advice);
  const std::string layout_differs =
      interface_layout_difference(interface_layout(), descriptor->interface_layout());
  if (!layout_differs.empty())
    throw PluginError(name + ": interface layout mismatch: the plugin was compiled against " +
                      layout_differs + " with another layout than this Radial's (a virtual "
                      "function added, removed, reordered or changed, or a value type resized, "
                      "in a header copied or edited without a plugin_abi_version change). "
                      "Build the plugin against the installed headers; do not copy them." +
                      rebuild_advice);
  if (!descriptor->id || !*descriptor->id || !descriptor->register_components) {
    throw PluginError(name + ": the descriptor has no " +
                      (descriptor->register_components ? "plugin id" : "registration function") +
                      "; declare the plugin with RADIAL_PLUGIN(id, version, register_fn).");
  }

  impl_->register_from(descriptor->register_components, library, name, descriptor->id,
                       descriptor->version);
  impl_->libraries.emplace_back(file, std::move(library));
}

void Registry::add_builtin(void (*register_components)(Registrar&), const std::string& origin) {
  if (!register_components) throw PluginError(origin + ": no registration function given");
  impl_->register_from(register_components, nullptr, origin, nullptr, nullptr);
}

const ComponentInfo* Registry::find(Slot slot, const std::string& id) const {
  const Entry* entry = impl_->find(slot, id);
  return entry ? &entry->info : nullptr;
}

std::vector<const ComponentInfo*> Registry::components() const {
  std::vector<const ComponentInfo*> out;
  for (const auto& entry : impl_->entries) out.push_back(&entry.info);
  std::sort(out.begin(), out.end(), [](const ComponentInfo* a, const ComponentInfo* b) {
    return std::make_pair(static_cast<int>(a->slot), a->id) <
           std::make_pair(static_cast<int>(b->slot), b->id);
  });
  return out;
}

std::vector<std::string> Registry::ids(Slot slot) const {
  std::vector<std::string> out;
  for (const auto& entry : impl_->entries) {
    if (entry.info.slot == slot) out.push_back(entry.info.id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<fs::path> Registry::loaded_files() const {
  std::vector<fs::path> out;
  for (const auto& loaded : impl_->libraries) out.push_back(loaded.first);
  return out;
}

const ComponentInfo& Registry::require(Slot slot, const std::string& id) const {
  if (const Entry* entry = impl_->find(slot, id)) return entry->info;
  throw InputError(unknown_plugin_message(slot, id));
}

Capabilities Registry::capabilities(Slot slot, const std::string& id,
                                    const Params& params) const {
  const ComponentInfo& info = require(slot, id);
  // Reading the parameters may refuse them as the factory would, with the same error.
  return info.capabilities ? info.capabilities(params) : Capabilities{};
}

std::string Registry::unknown_plugin_message(Slot slot, const std::string& id,
                                             const std::string& name_given) const {
  const std::string name = name_given.empty() ? std::string(to_string(slot)) : name_given;
  const std::string message = "unknown " + name + " plugin " + in_quotes(id);
  if (const Entry* other = impl_->find_any(id)) {
    return message + " (" + in_quotes(id) + " is a " + to_string(other->info.slot) +
           " plugin, not a " + name + " plugin)";
  }
  for (const PluginLoadFailure& failure : impl_->failures)
    if (failure.id == id)
      return message + ": it would come from " + failure.file.string() +
             ", which failed to load: " + failure.message;
  const std::vector<std::string> known = ids(slot);
  std::string out = message + text::guess(id, known) + "; " +
                    (known.empty() ? "no " + name + " plugins are loaded (check the plugin folder "
                                                    "and RADIAL_PLUGIN_PATH)"
                                   : "the " + name + " plugins are " + join(known));
  if (!impl_->failures.empty())
    out += " (" + std::to_string(impl_->failures.size()) + " plugin librar" +
           (impl_->failures.size() == 1 ? "y" : "ies") +
           " on the search path failed to load; `radial plugins list` names them)";
  return out;
}

std::shared_ptr<Basis> Registry::make_basis(const std::string& id, const Params& params) const {
  return impl_->make<Basis>(Slot::Basis, id, params, *this);
}

std::shared_ptr<CentreLearner> Registry::make_centre_learner(const std::string& id,
                                                             const Params& params) const {
  return impl_->make<CentreLearner>(Slot::Centres, id, params, *this);
}

std::shared_ptr<OutputLayer> Registry::make_output_layer(const std::string& id,
                                                         const Params& params) const {
  return impl_->make<OutputLayer>(Slot::Output, id, params, *this);
}

std::shared_ptr<WeightPenalty> Registry::make_weight_penalty(const std::string& id,
                                                             const Params& params) const {
  return impl_->make<WeightPenalty>(Slot::WeightPenalty, id, params, *this);
}

std::shared_ptr<KernelPrior> Registry::make_kernel_prior(const std::string& id,
                                                         const Params& params) const {
  return impl_->make<KernelPrior>(Slot::KernelPrior, id, params, *this);
}

std::shared_ptr<Refiner> Registry::make_refiner(const std::string& id,
                                                const Params& params) const {
  return impl_->make<Refiner>(Slot::Refine, id, params, *this);
}

}  // namespace radial
