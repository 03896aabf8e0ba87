#pragma once
// The model store: the only code that turns a Model into bytes and back.
//
// File layout: a checked text header line
//   RADIAL-MODEL <format-version> <payload-length> <fnv1a-64 checksum of the payload, hex>\n
// followed by a Boost.Serialization text archive of the Model. load_model reads and checks the
// header line (at most 128 bytes) before anything else, refuses a payload larger than
// max_model_payload_bytes or than the file, then reads exactly the payload; newer formats,
// truncated and corrupted files are refused with a ModelFileError naming the file and the
// problem. Writes are atomic (temporary file + rename).
//
// Model files may come from untrusted sources (docs/model-files.md): every length, count and
// shape in the archive is bounded by the bytes that remain before anything is allocated, the
// loaded model is checked for consistency (classes, weights, and the weights by the model's
// prediction rule, which must be registered) before it is returned, and the basis is named by
// a registry id, never by a path. The checksum detects
// damage, not intent: anyone can recompute it.

#include <cstdint>
#include <filesystem>
#include <string>

#include "radial/model/model.hpp"

namespace radial {

inline constexpr std::uint32_t model_format_version = 1;

// The largest payload load_model and deserialize_model accept (1 GiB); larger headers are
// refused before reading the payload.
inline constexpr std::uint64_t max_model_payload_bytes = std::uint64_t(1) << 30;

std::string serialize_model(const Model& model);
// `where` names the source in error messages (a file name). Any byte string gives a Model that
// passes the consistency check or a ModelFileError; allocations stay within a small multiple of
// the input's size.
Model deserialize_model(const std::string& bytes, const std::string& where);

void save_model(const Model& model, const std::filesystem::path& file);
Model load_model(const std::filesystem::path& file);

// A component State alone through the same archive code (the SDK's conformance kit uses it to
// check that a plugin's state survives the model store).
std::string serialize_state(const State& state);
State deserialize_state(const std::string& bytes, const std::string& where);

}  // namespace radial
