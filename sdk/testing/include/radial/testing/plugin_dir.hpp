#pragma once
// The folder of the plugins under test. In Radial's tree, the build's plugin folder; out of
// tree, the folder radial_add_plugin() built the plugin in (it defines RADIAL_PLUGIN_BUILD_DIR
// for the plugin's TEST_SOURCES; define it yourself for a test made another way).

#include <filesystem>

#ifndef RADIAL_PLUGIN_BUILD_DIR
#error "RADIAL_PLUGIN_BUILD_DIR: define it as the folder of the plugin under test (see above)"
#endif

namespace radial::testing {

inline std::filesystem::path plugin_dir() { return RADIAL_PLUGIN_BUILD_DIR; }

}  // namespace radial::testing
