#pragma once
// Shared by the fuzz targets: a private scratch folder for inputs that the readers take by path,
// the plugin registry of the build, and the rule for which exceptions are acceptable.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "radial/plugin/loader.hpp"

namespace radial::fuzz {

// A folder of this process's own (under TMPDIR), removed at exit.
const std::filesystem::path& scratch_dir();

// Writes `size` bytes to scratch_dir()/name (replaced each call) and returns the path.
std::filesystem::path write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size);

// Every plugin of the build (RADIAL_FUZZ_PLUGIN_DIR), loaded once.
const Registry& registry();

// read_dataset(file) with the task inferred, forced to regression, and forced to
// classification with class values {0, 1, 2} (as a test set is read), accepting radial errors.
void read_dataset_three_ways(const std::filesystem::path& file);

}  // namespace radial::fuzz

// Runs `body`; a radial::Error is the readers' way to refuse an input (InputError for bad
// input, NumericalError for a model that cannot produce finite outputs), so it is accepted.
// Anything else (std::bad_alloc, std::out_of_range, a toml++ or Boost exception escaping the
// reader) escapes: libFuzzer reports it as a crash, since the CLI would print no location.
#define RADIAL_FUZZ_ACCEPT_ERRORS(body) \
  try {                                 \
    body;                               \
  } catch (const radial::Error&) {      \
  }
