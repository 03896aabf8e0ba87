// radial.plugins(): what `radial plugins list/show` prints, as dicts.
#include <pybind11/stl.h>

#include "bindings.hpp"

namespace radial::python {
namespace {

py::object value(const ParamValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

py::dict param(const ParamSpec& spec) {
  py::dict d;
  d["name"] = spec.name;
  d["type"] = to_string(spec.type);
  d["default"] = spec.required ? py::none() : value(spec.default_value);
  d["required"] = spec.required;
  d["min"] = spec.min ? py::cast(*spec.min) : py::none();
  d["max"] = spec.max ? py::cast(*spec.max) : py::none();
  d["min_exclusive"] = spec.min_exclusive;
  d["choices"] = spec.choices;
  d["constraint"] = spec.describe_constraint();
  d["doc"] = spec.doc;
  return d;
}

}  // namespace

void bind_plugins(py::module_& m) {
  m.def(
      "plugins",
      [] {
        py::list out;
        for (const ComponentInfo* info : registry().components()) {
          py::dict d;
          d["id"] = info->id;
          d["slot"] = to_string(info->slot);
          d["version"] = info->version;
          d["summary"] = info->summary;
          d["paper"] = info->paper;
          d["library"] = info->library;
          py::list params;
          for (const ParamSpec& spec : info->params) params.append(param(spec));
          d["params"] = params;
          out.append(d);
        }
        return out;
      },
      "Every loaded plugin (built-in and from RADIAL_PLUGIN_PATH), sorted by slot then id: dicts "
      "with id, slot, version, summary, paper, library and params (the parameter table).");
  m.def(
      "plugin_load_failures",
      [] {
        py::list out;
        for (const PluginLoadFailure& f : registry().load_failures()) {
          py::dict d;
          d["file"] = f.file.string();
          d["message"] = f.message;
          d["id"] = f.id;
          out.append(d);
        }
        return out;
      },
      "The plugin libraries of the search path that failed to load and were left out (as `radial "
      "plugins list` reports them): dicts with file, message and id (may be empty).");
}

}  // namespace radial::python
