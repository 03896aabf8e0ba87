#pragma once
// Writing result files (models, reports, predictions) so that a failed run loses nothing.

#include <filesystem>
#include <string>

namespace radial {

// Writes `contents` to `file` atomically: a temporary file in the same folder, flushed, then
// renamed over the target. Used for models, reports and predictions (no half-written output).
void write_file_atomically(const std::filesystem::path& file, const std::string& contents);

}  // namespace radial
