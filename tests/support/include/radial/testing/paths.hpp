#pragma once
// Where tests find the repository's files and the build's plugins.

#include <filesystem>
#include <string>

namespace radial::testing {

inline std::filesystem::path source_dir() { return RADIAL_SOURCE_DIR; }
inline std::filesystem::path binary_dir() { return RADIAL_BINARY_DIR; }
inline std::filesystem::path plugin_dir() { return RADIAL_PLUGIN_BUILD_DIR; }
inline std::filesystem::path test_data(const std::string& name) {
  return source_dir() / "tests" / "data" / name;
}

}  // namespace radial::testing
