#pragma once
// The model store: the only code that turns a Model into bytes and back.
//
// File layout: a checked text header line
//   RADIAL-MODEL <format-version> <payload-length> <fnv1a-64 checksum of the payload, hex>\n
// followed by a Boost.Serialization text archive of the Model. The header is verified before
// Boost reads anything, so newer formats, truncated and corrupted files are refused with a
// ModelFileError naming the file and the problem. Writes are atomic (temporary file + rename).
// Model files are trusted input (Boost archives are not hardened parsers), but a damaged file
// is caught by the checksum and never reaches the archive reader.

#include <cstdint>
#include <filesystem>
#include <string>

#include "radial/model.hpp"

namespace radial {

inline constexpr std::uint32_t model_format_version = 1;

std::string serialize_model(const Model& model);
// `where` names the source in error messages (a file name).
Model deserialize_model(const std::string& bytes, const std::string& where);

void save_model(const Model& model, const std::filesystem::path& file);
Model load_model(const std::filesystem::path& file);

// A component State alone through the same archive code (the SDK's conformance kit uses it to
// check that a plugin's state survives the model store).
std::string serialize_state(const State& state);
State deserialize_state(const std::string& bytes, const std::string& where);

}  // namespace radial
