// The model store (radial/model_store.hpp): a checked header line, then a Boost.Serialization
// text archive of the Model (model_archive.hpp). The header is verified in full before Boost
// sees a byte of the payload.
#include "radial/model_store.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>

#include "model_archive.hpp"
#include "radial/errors.hpp"
#include "radial/output_file.hpp"

namespace radial {

namespace {

namespace fs = std::filesystem;
using model_archive::ArchiveInconsistency;

constexpr const char* magic = "RADIAL-MODEL";
constexpr std::size_t max_header_length = 128;

// FNV-1a, 64 bit (offset basis and prime of the FNV specification).
std::uint64_t fnv1a64(const char* data, std::size_t size) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= static_cast<unsigned char>(data[i]);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex64(std::uint64_t value) {
  static const char digits[] = "0123456789abcdef";
  std::string text(16, '0');
  for (int i = 15; i >= 0; --i, value >>= 4) text[std::size_t(i)] = digits[value & 0xf];
  return text;
}

bool all_digits(const std::string& s, std::size_t max_length) {
  if (s.empty() || s.size() > max_length) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool lower_hex(const std::string& s) {
  if (s.size() != 16) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// The header line for messages: printable characters only.
std::string printable(const std::string& s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

std::string shape_text(std::size_t rows, std::size_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

// Empty when the parts of `model` agree with each other; otherwise what disagrees.
std::string model_inconsistency(const Model& model) {
  try {
    model.centres.check();
  } catch (const ShapeError& e) {
    return e.what();  // "centres: ..."
  }
  const Centres& c = model.centres;
  const std::size_t m = c.count();
  const std::size_t d = c.means.shape(1);
  if (m > 0 && !model.feature_names.empty() && model.feature_names.size() != d)
    return std::to_string(model.feature_names.size()) + " feature names for centres of " +
           std::to_string(d) + " features";
  if (model.standardize) {
    const Standardiser& s = model.standardiser;
    if (s.mean.size() != s.scale.size() || (m > 0 && s.mean.size() != d))
      return "standardiser of " + std::to_string(s.mean.size()) + " means and " +
             std::to_string(s.scale.size()) + " scales for " + std::to_string(d) + " features";
    for (std::size_t i = 0; i < s.scale.size(); ++i)
      if (!(s.scale(i) > 0) || !std::isfinite(s.scale(i)) || !std::isfinite(s.mean(i)))
        return "standardiser feature " + std::to_string(i) + " has mean " +
               std::to_string(s.mean(i)) + " and scale " + std::to_string(s.scale(i)) +
               " (scales must be finite and > 0)";
  }
  const std::size_t classes = model.class_values.size();
  if (model.link == Link::Bayes) {
    if (model.weights.size() != 0)
      return "the Bayes output has no weights, but the model holds a " +
             shape_text(model.weights.shape(0), model.weights.shape(1)) + " weight matrix";
    if (m > 0 && !c.has_mixing()) return "the Bayes output needs mixing weights pi_jk";
    if (c.has_mixing() && c.class_priors.size() != c.mixing.shape(1))
      return std::to_string(c.class_priors.size()) + " class priors for " +
             std::to_string(c.mixing.shape(1)) + " mixing columns";
    if (c.has_mixing() && classes != 0 && classes != c.mixing.shape(1))
      return std::to_string(classes) + " class labels for " + std::to_string(c.mixing.shape(1)) +
             " mixing columns";
    return {};
  }
  if (model.weights.size() == 0) return {};
  if (model.weights.shape(0) != m + 1)
    return "weights are " + shape_text(model.weights.shape(0), model.weights.shape(1)) +
           " for " + std::to_string(m) + " centres (expected " + std::to_string(m + 1) +
           " rows, bias last)";
  if (model.link == Link::Logistic) {
    if (model.weights.shape(1) != 1)
      return "the logistic output has one column of weights, the model has " +
             std::to_string(model.weights.shape(1));
    if (classes != 0 && classes != 2)
      return "the logistic output is for 2 classes, the model lists " + std::to_string(classes);
  }
  if (model.link == Link::Softmax && classes != 0 && model.weights.shape(1) != classes)
    return "softmax weights have " + std::to_string(model.weights.shape(1)) +
           " columns for " + std::to_string(classes) + " classes";
  return {};
}

template <class T>
std::string archive_to_string(const T& value) {
  std::ostringstream out;
  {
    boost::archive::text_oarchive archive(out);
    archive << value;
  }
  if (!out) throw Error("model store: writing the archive to memory failed");
  return out.str();
}

// Reads a T from `payload`, turning every failure into a ModelFileError naming `where`.
template <class T>
T archive_from_string(const std::string& payload, const std::string& where, const char* what) {
  T value{};
  try {
    std::istringstream in(payload);
    boost::archive::text_iarchive archive(in);
    archive >> value;
    in >> std::ws;
    if (!in.eof())
      throw ArchiveInconsistency("unread data after the " + std::string(what) + " at byte " +
                                 std::to_string(std::streamoff(in.tellg())) + " of the payload");
  } catch (const ArchiveInconsistency& e) {
    throw ModelFileError(where + ": inconsistent " + what + ": " + e.what() +
                         "; the file was not written by this version of Radial or is damaged");
  } catch (const boost::archive::archive_exception& e) {
    throw ModelFileError(where + ": cannot read the " + what + " archive (" + e.what() +
                         "); the file was not written by this version of Radial or is damaged");
  } catch (const std::exception& e) {
    throw ModelFileError(where + ": cannot read the " + what + " archive (" + e.what() +
                         "); the file is damaged");
  }
  return value;
}

// The payload of a checked file, after verifying the header line in `bytes`.
std::string verified_payload(const std::string& bytes, const std::string& where) {
  const std::string prefix = std::string(magic) + " ";
  if (bytes.empty())
    throw ModelFileError(where + ": the file is empty, not a Radial model (it should start with " +
                         magic + ")");
  if (bytes.compare(0, prefix.size(), prefix) != 0) {
    if (bytes.size() < prefix.size() && prefix.compare(0, bytes.size(), bytes) == 0)
      throw ModelFileError(where + ": truncated model file: " + std::to_string(bytes.size()) +
                           " bytes, cut inside the header line");
    throw ModelFileError(where + ": not a Radial model file (it does not start with " + magic +
                         "); check the path");
  }
  const std::size_t newline = bytes.find('\n');
  if (newline == std::string::npos || newline > max_header_length) {
    if (newline == std::string::npos && bytes.size() <= max_header_length)
      throw ModelFileError(where + ": truncated model file: " + std::to_string(bytes.size()) +
                           " bytes, cut inside the header line");
    throw ModelFileError(where + ": malformed model header: no end of line within the first " +
                         std::to_string(max_header_length) + " bytes");
  }
  const std::string header = bytes.substr(0, newline);
  std::vector<std::string> fields;
  {
    std::size_t start = 0;
    while (start <= header.size()) {
      const std::size_t space = header.find(' ', start);
      const std::size_t end = space == std::string::npos ? header.size() : space;
      fields.push_back(header.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string expected_form =
      std::string("expected '") + magic + " <format> <payload bytes> <fnv1a-64 hex>'";
  // The format version first: a newer format may lay out the rest of the header differently.
  if (fields.size() < 2 || !all_digits(fields[1], 9))
    throw ModelFileError(where + ": malformed model header '" + printable(header) + "' (" +
                         expected_form + ")");
  const unsigned long format = std::stoul(fields[1]);
  if (format > model_format_version)
    throw ModelFileError(where + ": written by a newer Radial: format " + fields[1] +
                         ", this build reads up to " + std::to_string(model_format_version) +
                         "; load it with a newer Radial");
  if (format == 0 || fields.size() != 4 || !all_digits(fields[2], 19) || !lower_hex(fields[3]))
    throw ModelFileError(where + ": malformed model header '" + printable(header) + "' (" +
                         expected_form + ")");
  const unsigned long long length = std::stoull(fields[2]);
  const std::size_t available = bytes.size() - newline - 1;
  if (available < length)
    throw ModelFileError(where + ": truncated model file: the header announces " + fields[2] +
                         " payload bytes but only " + std::to_string(available) +
                         " follow; the file was cut short (copy or save it again)");
  if (available > length)
    throw ModelFileError(where + ": " + std::to_string(available - length) +
                         " unexpected bytes after the " + fields[2] +
                         "-byte payload announced by the header; the file was altered after it "
                         "was written");
  const char* payload = bytes.data() + newline + 1;
  const std::string checksum = hex64(fnv1a64(payload, std::size_t(length)));
  if (checksum != fields[3])
    throw ModelFileError(where + ": corrupted model file: the payload checksum is " + checksum +
                         " but the header says " + fields[3] +
                         "; the file was damaged after it was written");
  return std::string(payload, std::size_t(length));
}

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

std::string serialize_model(const Model& model) {
  const std::string problem = model_inconsistency(model);
  if (!problem.empty()) throw Error("model store: refusing to save an inconsistent model: " + problem);
  const std::string payload = archive_to_string(model);
  return std::string(magic) + " " + std::to_string(model_format_version) + " " +
         std::to_string(payload.size()) + " " + hex64(fnv1a64(payload.data(), payload.size())) +
         "\n" + payload;
}

Model deserialize_model(const std::string& bytes, const std::string& where) {
  const std::string payload = verified_payload(bytes, where);
  Model model = archive_from_string<Model>(payload, where, "model");
  const std::string problem = model_inconsistency(model);
  if (!problem.empty())
    throw ModelFileError(where + ": inconsistent model: " + problem +
                         "; the file was not written by this version of Radial or is damaged");
  return model;
}

void save_model(const Model& model, const std::filesystem::path& file) {
  write_file_atomically(file, serialize_model(model));
}

Model load_model(const std::filesystem::path& file) {
  const std::string where = file.string();
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (!fs::exists(status))
    throw ModelFileError(where + ": no such model file" +
                         (ec && ec != std::errc::no_such_file_or_directory
                              ? " (" + ec.message() + ")"
                              : std::string()) +
                         "; check the path");
  if (fs::is_directory(status))
    throw ModelFileError(where + ": is a directory, not a model file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelFileError(where + ": cannot open the model file (" + errno_text(errno) + ")");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw ModelFileError(where + ": reading the model file failed");
  return deserialize_model(bytes.str(), where);
}

std::string serialize_state(const State& state) { return archive_to_string(state); }

State deserialize_state(const std::string& bytes, const std::string& where) {
  return archive_from_string<State>(bytes, where, "component state");
}

}  // namespace radial
