#pragma once
// Where a TOML value stands ("file:line:column") and the PipelineError that names it, for the
// pipeline and experiment readers: their parse, and their messages.

#include <filesystem>
#include <string>

#include <toml++/toml.h>

#include "radial/core/errors.hpp"

namespace radial::pipeline {

// The file alone when toml++ knows no line (a node made in code).
inline std::string place(const std::string& file, const toml::source_region& region) {
  if (region.begin.line == 0) return file;
  return file + ":" + std::to_string(region.begin.line) + ":" +
         std::to_string(region.begin.column);
}

// The table of a TOML text; a syntax error is a PipelineError at its place.
inline toml::table parse_toml(const std::string& text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& error) {
    throw PipelineError(place(file, error.source()) + ": TOML syntax error: " +
                        std::string(error.description()) +
                        "; fix the syntax here (the format is described at https://toml.io)");
  }
}

// The file a reader (pipeline, experiment) reads: its name as messages write it, its absolute
// path and folder, and places in it.
class TomlSource {
 protected:
  explicit TomlSource(const std::filesystem::path& file)
      : display_(file.string()),
        absolute_(std::filesystem::absolute(file).lexically_normal()),
        folder_(absolute_.parent_path()) {}

  std::string at(const toml::source_region& region) const { return place(display_, region); }
  std::string top() const { return display_ + ":1:1"; }

  std::string display_;
  std::filesystem::path absolute_, folder_;
};

[[noreturn]] inline void fail(const std::string& where, const std::string& message) {
  throw PipelineError(where + ": " + message);
}

}  // namespace radial::pipeline
