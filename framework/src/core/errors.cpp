// Out-of-line definitions: the type information of Radial's exceptions lives in the framework
// library, never in a plugin that might be unloaded while an exception is in flight.
#include "radial/core/errors.hpp"

namespace radial {

Error::Error(const std::string& message) : std::runtime_error(message) {}
Error::~Error() = default;
InputError::InputError(const std::string& message) : Error(message) {}
InputError::~InputError() = default;
PipelineError::PipelineError(const std::string& message) : InputError(message) {}
PipelineError::~PipelineError() = default;
DataError::DataError(const std::string& message) : InputError(message) {}
DataError::~DataError() = default;
ModelFileError::ModelFileError(const std::string& message) : InputError(message) {}
ModelFileError::~ModelFileError() = default;
PluginError::PluginError(const std::string& message) : InputError(message) {}
PluginError::~PluginError() = default;
ParameterError::ParameterError(const std::string& message) : InputError(message) {}
ParameterError::~ParameterError() = default;
ShapeError::ShapeError(const std::string& message) : InputError(message) {}
ShapeError::~ShapeError() = default;
NumericalError::NumericalError(const std::string& message) : Error(message) {}
NumericalError::~NumericalError() = default;

void rethrow_prefixed(const Error& error, const std::string& prefix) {
  rethrow_as(error, prefix + error.what());
}

void rethrow_as(const Error& error, const std::string& message) {
  if (dynamic_cast<const PipelineError*>(&error)) throw PipelineError(message);
  if (dynamic_cast<const DataError*>(&error)) throw DataError(message);
  if (dynamic_cast<const ModelFileError*>(&error)) throw ModelFileError(message);
  if (dynamic_cast<const PluginError*>(&error)) throw PluginError(message);
  if (dynamic_cast<const ParameterError*>(&error)) throw ParameterError(message);
  if (dynamic_cast<const ShapeError*>(&error)) throw ShapeError(message);
  if (dynamic_cast<const InputError*>(&error)) throw InputError(message);
  if (dynamic_cast<const NumericalError*>(&error)) throw NumericalError(message);
  throw Error(message);
}

}  // namespace radial
