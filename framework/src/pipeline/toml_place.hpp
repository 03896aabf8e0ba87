#pragma once
// Where a TOML value stands ("file:line:column") and the PipelineError that names it, for the
// messages of the pipeline and experiment readers.

#include <string>

#include <toml++/toml.h>

#include "radial/errors.hpp"

namespace radial::pipeline {

// The file alone when toml++ knows no line (a node made in code).
inline std::string place(const std::string& file, const toml::source_region& region) {
  if (region.begin.line == 0) return file;
  return file + ":" + std::to_string(region.begin.line) + ":" +
         std::to_string(region.begin.column);
}

[[noreturn]] inline void fail(const std::string& where, const std::string& message) {
  throw PipelineError(where + ": " + message);
}

}  // namespace radial::pipeline
