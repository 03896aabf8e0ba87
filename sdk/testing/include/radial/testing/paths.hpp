#pragma once
// Where Radial's own tests find the repository's files and the build's plugins. In-tree only
// (not installed): the source and build folders are those of Radial's build.

#include <filesystem>
#include <string>

#include "radial/testing/plugin_dir.hpp"

namespace radial::testing {

inline std::filesystem::path source_dir() { return RADIAL_SOURCE_DIR; }
inline std::filesystem::path binary_dir() { return RADIAL_BINARY_DIR; }
inline std::filesystem::path test_data(const std::string& name) {
  return source_dir() / "tests" / "data" / name;
}

}  // namespace radial::testing
