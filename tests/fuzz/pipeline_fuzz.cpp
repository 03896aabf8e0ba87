// Fuzz target: the pipeline reader (TOML + validation against the plugins' parameter tables),
// with `--set` overrides. Leading lines "#set slot.key=value" of the input are also passed as
// overrides (they stay in the text, where TOML reads them as comments).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz_support.hpp"
#include "radial/core/errors.hpp"
#include "radial/pipeline/pipeline.hpp"

namespace fs = std::filesystem;

namespace {

// A folder where the relative data paths of the seeds resolve: tests/data's files and
// docs/examples/data as data/. The reader only checks that data files exist.
fs::path pipeline_file() {
  static const fs::path file = [] {
    const fs::path dir = radial::fuzz::scratch_dir() / "pipeline";
    fs::create_directories(dir);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(RADIAL_SOURCE_DIR) / "tests/data"))
      fs::create_symlink(entry.path(), dir / entry.path().filename(), ec);
    fs::create_directory_symlink(fs::path(RADIAL_SOURCE_DIR) / "docs/examples/data", dir / "data", ec);
    return dir / "fuzz.toml";
  }();
  return file;
}

std::vector<std::string> leading_overrides(const std::string& text) {
  static const std::string marker = "#set ";
  std::vector<std::string> overrides;
  std::size_t start = 0;
  while (start < text.size() && text.compare(start, marker.size(), marker) == 0) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    overrides.push_back(text.substr(start + marker.size(), end - start - marker.size()));
    start = end + 1;
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto overrides = leading_overrides(text);
  RADIAL_FUZZ_ACCEPT_ERRORS(
      radial::parse_pipeline(text, pipeline_file(), radial::fuzz::registry(), overrides));
  return 0;
}
