// The `radial._radial` extension module: see apps/python/radial/__init__.py for the Python face.
#include <pybind11/stl.h>

#include <cstdlib>
#include <mutex>

#include "bindings.hpp"
#include "interrupt.hpp"
#include "radial/core/version.hpp"

namespace radial::python {
namespace {

std::string module_folder;
Registry* loaded = nullptr;

}  // namespace

void set_module_folder(const std::string& folder) { module_folder = folder; }

const Registry& registry() {
  // Callers hold the GIL, which serialises the first load.
  if (loaded != nullptr) return *loaded;
  // Registry::search_path() finds the plugin folder beside the running program, which here is
  // the Python interpreter. The folder beside this module (build tree or installation) is added
  // after RADIAL_PLUGIN_PATH's entries for the duration of the load, so precedence is the CLI's.
  const char* original = std::getenv("RADIAL_PLUGIN_PATH");
  const std::string saved = original ? original : "";
  std::string path = saved;
  if (!module_folder.empty()) {
    for (const char* relative : {RADIAL_PYTHON_BUILD_PLUGINS, RADIAL_PYTHON_INSTALLED_PLUGINS}) {
      path += (path.empty() ? "" : ":") + module_folder + "/" + relative;
    }
  }
  auto fresh = std::make_unique<Registry>();
  ::setenv("RADIAL_PLUGIN_PATH", path.c_str(), 1);
  try {
    fresh->load_default();
  } catch (...) {
    original ? ::setenv("RADIAL_PLUGIN_PATH", saved.c_str(), 1) : ::unsetenv("RADIAL_PLUGIN_PATH");
    throw;
  }
  original ? ::setenv("RADIAL_PLUGIN_PATH", saved.c_str(), 1) : ::unsetenv("RADIAL_PLUGIN_PATH");
  loaded = fresh.release();  // deliberately never freed (see registry() in bindings.hpp)
  return *loaded;
}

}  // namespace radial::python

PYBIND11_MODULE(_radial, m) {
  namespace rp = radial::python;
  m.doc() = "Radial RBF networks: the framework's plugins, pipelines, models and reports.";
  m.attr("__version__") = radial::version;
  m.def("_set_module_folder", &rp::set_module_folder);
  m.def("_wait_for_background_work", &rp::wait_for_background_work);
  m.def(
      "_search_path",
      [] {
        std::vector<std::string> out;
        for (const auto& folder : radial::Registry::search_path()) out.push_back(folder.string());
        return out;
      },
      "Folders Registry::search_path() gives (without the module's own plugin folder).");
  rp::bind_errors(m);
  rp::bind_plugins(m);
  rp::bind_pipeline(m);
  rp::bind_model(m);
}
