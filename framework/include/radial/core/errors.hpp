#pragma once
// The only exception types that may cross a library boundary (host, framework and plugins).
// They are defined out of line in the framework library so that their type information lives
// there, not in a plugin that could be unloaded while an exception is in flight.
//
// InputError and its subclasses mean "the user gave us something wrong" (the CLI exits 2);
// any other Error is an internal failure (exit 1). Non-convergence is never an exception: it is
// reported in the FitReport.

#include <stdexcept>
#include <string>

namespace radial {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message);
  ~Error() override;
};

// Bad input: pipeline files, data files, model files, plugins, parameters, CLI usage.
class InputError : public Error {
 public:
  explicit InputError(const std::string& message);
  ~InputError() override;
};

// Pipeline file problems; the message starts with file:line:column.
class PipelineError : public InputError {
 public:
  explicit PipelineError(const std::string& message);
  ~PipelineError() override;
};

// Data file problems; the message names file, line and column.
class DataError : public InputError {
 public:
  explicit DataError(const std::string& message);
  ~DataError() override;
};

// Model files that are corrupted, truncated, of a newer format, or inconsistent.
class ModelFileError : public InputError {
 public:
  explicit ModelFileError(const std::string& message);
  ~ModelFileError() override;
};

// A plugin library that cannot be used (no entry point, ABI or fingerprint mismatch, or a
// factory that failed); the message names the file, what was expected and what was found.
class PluginError : public InputError {
 public:
  explicit PluginError(const std::string& message);
  ~PluginError() override;
};

// A parameter outside its declared type, range or choices, or an unknown parameter.
class ParameterError : public InputError {
 public:
  explicit ParameterError(const std::string& message);
  ~ParameterError() override;
};

// Arrays of the wrong shape handed to a component (e.g. 3 features where 2 were trained).
class ShapeError : public InputError {
 public:
  explicit ShapeError(const std::string& message);
  ~ShapeError() override;
};

// Numerical trouble that no guard could recover from (the guards that did recover are
// warnings in the FitReport instead).
class NumericalError : public Error {
 public:
  explicit NumericalError(const std::string& message);
  ~NumericalError() override;
};

// Throws an error of `error`'s most derived Radial type (a ParameterError stays a
// ParameterError, so callers and the CLI's exit code still work) with `message`.
[[noreturn]] void rethrow_as(const Error& error, const std::string& message);
// rethrow_as with `prefix` in front of the message: how the registry names a plugin library and
// the trainer a stage's plugin ("kmeans: ...").
[[noreturn]] void rethrow_prefixed(const Error& error, const std::string& prefix);

}  // namespace radial
