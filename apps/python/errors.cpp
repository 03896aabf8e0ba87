// radial exceptions -> Python exceptions. The classes are defined in radial/__init__.py (so
// that InputError can also be a ValueError, as scikit-learn expects of bad input) and handed
// here once; the message is the framework's, exactly as the CLI prints it.
#include "radial/core/errors.hpp"

#include <pybind11/stl.h>

#include <map>

#include "bindings.hpp"

namespace radial::python {
namespace {

// name -> class; filled by _set_exception_classes, kept for the life of the process.
std::map<std::string, py::object>* classes = nullptr;

void raise(const char* name, const std::exception& e) {
  if (classes != nullptr) {
    const auto it = classes->find(name);
    if (it != classes->end()) {
      PyErr_SetString(it->second.ptr(), e.what());
      return;
    }
  }
  PyErr_SetString(PyExc_RuntimeError, e.what());
}

}  // namespace

void bind_errors(py::module_& m) {
  m.def("_set_exception_classes", [](const std::map<std::string, py::object>& given) {
    if (classes == nullptr) classes = new std::map<std::string, py::object>();
    *classes = given;
  });
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const PipelineError& e) {
      raise("PipelineError", e);
    } catch (const DataError& e) {
      raise("DataError", e);
    } catch (const ModelFileError& e) {
      raise("ModelFileError", e);
    } catch (const PluginError& e) {
      raise("PluginError", e);
    } catch (const ParameterError& e) {
      raise("ParameterError", e);
    } catch (const ShapeError& e) {
      raise("ShapeError", e);
    } catch (const InputError& e) {
      raise("InputError", e);
    } catch (const NumericalError& e) {
      raise("NumericalError", e);
    } catch (const Error& e) {
      raise("Error", e);
    }
  });
}

}  // namespace radial::python
