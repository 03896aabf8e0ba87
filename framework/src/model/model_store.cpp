// The model store (radial/model/model_store.hpp): a checked header line, then a Boost.Serialization
// text archive of the Model (model_archive.hpp). The header is verified in full before Boost
// sees a byte of the payload.
#include "radial/model/model_store.hpp"

#include <algorithm>
#include <cmath>
#include <istream>
#include <sstream>
#include <streambuf>
#include <vector>

#include <boost/archive/archive_exception.hpp>
#include <boost/archive/text_oarchive.hpp>

#include "bounded_iarchive.hpp"
#include "model_archive.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "radial/io/output_file.hpp"
#include "radial/core/polynomial_term.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace {

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

std::string number_text(double v) { return text::number(v, 17); }

// Empty when the class values are usable as labels: finite, distinct, in increasing order
// (the trainer writes them sorted, and evaluate codes a data file's labels by that order).
std::string class_values_problem(const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      return "class value " + std::to_string(i) + " is " + number_text(values[i]) +
             "; class values must be finite";
    if (i > 0 && !(values[i] > values[i - 1]))
      return "class value " + std::to_string(i) + " (" + number_text(values[i]) +
             ") does not follow " + number_text(values[i - 1]) +
             "; class values must be distinct and in increasing order";
  }
  return {};
}

// Empty when text class labels are usable: none, or one per class, distinct and in increasing
// byte order (as the readers code them), with class values 0..K-1.
std::string class_names_problem(const std::vector<double>& values,
                                const std::vector<std::string>& names) {
  if (names.empty()) return {};
  if (names.size() != values.size())
    return std::to_string(names.size()) + " class names for " + std::to_string(values.size()) +
           " classes";
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (values[k] != double(k))
      return "class value " + std::to_string(k) + " is " + number_text(values[k]) +
             " in a model with text class labels (expected " + std::to_string(k) + ")";
    if (k > 0 && !(names[k - 1] < names[k]))
      return "class name " + std::to_string(k) + " does not follow class name " +
             std::to_string(k - 1) + "; class names must be distinct and in increasing order";
  }
  return {};
}

// Empty when the parts of `model` agree with each other as the trainer writes them; otherwise
// what disagrees. Every model that passes can be turned into a Network whose outputs index
// class_values in range: regression has no classes; classification lists K >= 1 classes with
// owners below K; the weights have M+1 rows and the model's prediction rule accepts them for K
// classes (0 for regression). A model whose rule is not registered (a plugin's rule, and that
// plugin is not loaded) is refused: nothing could check or use its weights.
std::string model_inconsistency(const Model& model) {
  try {
    model.centres.check();
  } catch (const ShapeError& e) {
    return e.what();  // "centres: ..."
  }
  const Centres& c = model.centres;
  const std::size_t m = c.count();
  const std::size_t d = c.dim();
  if (d == 0) return "the centres have 0 features";
  if (!model.feature_names.empty() && model.feature_names.size() != d)
    return std::to_string(model.feature_names.size()) + " feature names for centres of " +
           std::to_string(d) + " features";
  if (model.standardize) {
    const Standardiser& s = model.standardiser;
    if (s.mean.size() != s.scale.size() || s.mean.size() != d)
      return "standardiser of " + std::to_string(s.mean.size()) + " means and " +
             std::to_string(s.scale.size()) + " scales for " + std::to_string(d) + " features";
    for (std::size_t i = 0; i < s.scale.size(); ++i)
      if (!(s.scale(i) > 0) || !std::isfinite(s.scale(i)) || !std::isfinite(s.mean(i)))
        return "standardiser feature " + std::to_string(i) + " has mean " +
               std::to_string(s.mean(i)) + " and scale " + std::to_string(s.scale(i)) +
               " (scales must be finite and > 0)";
  }

  if (!model.input_coding.empty()) {
    const std::string problem = model.input_coding.problem();
    if (!problem.empty()) return problem;
    if (model.input_coding.coded_names() != model.feature_names)
      return "the coded names of the nominal inputs differ from the feature names";
  }

  if (model.imputation.size() != 0) {
    if (model.imputation.size() != d)
      return std::to_string(model.imputation.size()) + " imputation values for " +
             std::to_string(d) + " features";
    for (std::size_t j = 0; j < d; ++j)
      if (!std::isfinite(model.imputation(j)))
        return "imputation value " + std::to_string(j) + " is not finite";
  }

  const Centres& im = model.input_model;
  if (im.means.size() != 0) {
    if (im.means.dimension() != 2 || im.count() != 1 || im.dim() != d)
      return "the input model is not one Gaussian in the " + std::to_string(d) + " features";
    for (std::size_t j = 0; j < d; ++j)
      if (!std::isfinite(im.means(0, j)))
        return "the input model's mean " + std::to_string(j) + " is not finite";
    if (im.shape == Shape::Diagonal) {
      if (im.diagonal.dimension() != 2 || im.diagonal.shape(0) != 1 || im.diagonal.shape(1) != d)
        return "the input model's variances are not 1 x " + std::to_string(d);
      for (std::size_t j = 0; j < d; ++j)
        if (!(im.diagonal(0, j) >= 0) || !std::isfinite(im.diagonal(0, j)))
          return "the input model's variance " + std::to_string(j) + " is not finite and >= 0";
    } else if (im.shape == Shape::Full) {
      if (im.covariances.dimension() != 3 || im.covariances.shape(0) != 1 ||
          im.covariances.shape(1) != d || im.covariances.shape(2) != d)
        return "the input model's covariance is not " + std::to_string(d) + " x " +
               std::to_string(d);
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b)
          if (!std::isfinite(im.covariances(0, a, b)) ||
              im.covariances(0, a, b) != im.covariances(0, b, a) ||
              (a == b && !(im.covariances(0, a, a) > 0)))
            return "the input model's covariance is not finite and symmetric with a positive "
                   "diagonal";
    } else {
      return "the input model has shape " + std::string(to_string(im.shape)) +
             "; it must be diagonal or full";
    }
  }

  const std::size_t classes = model.class_values.size();
  const bool classification = model.task == Task::Classification;
  if (classification) {
    if (classes == 0)
      return "a classification model lists no class values (it needs one per output class)";
    const std::string problem = class_values_problem(model.class_values);
    if (!problem.empty()) return problem;
    const std::string names = class_names_problem(model.class_values, model.class_names);
    if (!names.empty()) return names;
    if (c.owner.size() != 0)
      for (std::size_t j = 0; j < m; ++j)
        if (c.owner(j) >= std::int64_t(classes))
          return "centre " + std::to_string(j) + " has owner class " +
                 std::to_string(c.owner(j)) + " but the model has " + std::to_string(classes) +
                 " classes";
  } else {
    if (classes != 0)
      return "a regression model lists " + std::to_string(classes) +
             " class values; only classification models have classes";
  }

  const std::size_t rows = model.weights.shape(0), columns = model.weights.shape(1);
  // M + 1 rows, or M + q with the basis's polynomial term (radial/core/polynomial_term.hpp).
  const std::size_t expected = m + design_polynomial_columns(model.basis_params, c.dim());
  if (rows != expected || columns == 0)
    return "weights are " + shape_text(rows, columns) + " for " + std::to_string(m) +
           " centres (expected " + std::to_string(expected) + " rows, bias last, and at least "
           "one column)";
  const PredictionRule* rule = find_prediction_rule(model.link.name());
  if (!rule)
    return "link '" + model.link.name() + "' is a prediction rule that no loaded plugin "
           "registers (the model was trained by output plugin '" + model.output_id +
           "'; install it)";
  return rule->check(model.weights, classification ? classes : 0);
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

// A read-only stream buffer over bytes the caller keeps alive: the archive reads the payload
// in place (no copy), and in_avail() tells the bounded archive how many bytes remain.
class MemoryBuffer : public std::streambuf {
 public:
  MemoryBuffer(const char* data, std::size_t size) {
    char* begin = const_cast<char*>(data);  // never written: there is no put area
    setg(begin, begin, begin + size);
  }

 protected:
  pos_type seekoff(off_type offset, std::ios_base::seekdir dir,
                   std::ios_base::openmode which) override {
    if (offset != 0 || dir != std::ios_base::cur || !(which & std::ios_base::in))
      return pos_type(off_type(-1));
    return pos_type(off_type(gptr() - eback()));
  }
};

// Reads a T from `payload`, turning every failure into a ModelFileError naming `where`.
template <class T>
T archive_from_string(const char* payload, std::size_t size, const std::string& where,
                      const char* what) {
  T value{};
  try {
    MemoryBuffer buffer(payload, size);
    std::istream in(&buffer);
    model_archive::BoundedTextIArchive archive(in);
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

struct Header {
  std::size_t size = 0;        // bytes of the header line, '\n' included
  std::uint64_t length = 0;    // payload bytes announced
  std::string length_text;     // as written
  std::string checksum;        // 16 lower-case hex digits
};

// The header line at the start of `head`, which holds the first bytes of the file: all of
// them, or at least max_header_length + 1 when the file is longer.
Header parse_header(const std::string& head, const std::string& where) {
  const std::string prefix = std::string(magic) + " ";
  if (head.empty())
    throw ModelFileError(where + ": the file is empty, not a Radial model (it should start with " +
                         magic + ")");
  if (head.compare(0, prefix.size(), prefix) != 0) {
    if (head.size() < prefix.size() && prefix.compare(0, head.size(), head) == 0)
      throw ModelFileError(where + ": truncated model file: " + std::to_string(head.size()) +
                           " bytes, cut inside the header line");
    throw ModelFileError(where + ": not a Radial model file (it does not start with " + magic +
                         "); check the path");
  }
  const std::size_t newline = head.find('\n');
  if (newline == std::string::npos || newline > max_header_length) {
    if (newline == std::string::npos && head.size() <= max_header_length)
      throw ModelFileError(where + ": truncated model file: " + std::to_string(head.size()) +
                           " bytes, cut inside the header line");
    throw ModelFileError(where + ": malformed model header: no end of line within the first " +
                         std::to_string(max_header_length) + " bytes");
  }
  const std::string line = head.substr(0, newline);
  std::vector<std::string> fields;
  {
    std::size_t start = 0;
    while (start <= line.size()) {
      const std::size_t space = line.find(' ', start);
      const std::size_t end = space == std::string::npos ? line.size() : space;
      fields.push_back(line.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string expected_form =
      std::string("expected '") + magic + " <format> <payload bytes> <fnv1a-64 hex>'";
  // The format version first: a newer format may lay out the rest of the header differently.
  if (fields.size() < 2 || !all_digits(fields[1], 9))
    throw ModelFileError(where + ": malformed model header '" + printable(line) + "' (" +
                         expected_form + ")");
  const unsigned long format = std::stoul(fields[1]);
  if (format > model_format_version)
    throw ModelFileError(where + ": written by a newer Radial: format " + fields[1] +
                         ", this build reads up to " + std::to_string(model_format_version) +
                         "; load it with a newer Radial");
  if (format == 0 || fields.size() != 4 || !all_digits(fields[2], 19) || !lower_hex(fields[3]))
    throw ModelFileError(where + ": malformed model header '" + printable(line) + "' (" +
                         expected_form + ")");
  Header header;
  header.size = newline + 1;
  header.length = std::stoull(fields[2]);
  header.length_text = fields[2];
  header.checksum = fields[3];
  if (header.length > max_model_payload_bytes)
    throw ModelFileError(where + ": the header announces a payload of " + fields[2] +
                         " bytes, more than " + byte_count_text(max_model_payload_bytes) +
                         ", the largest model Radial reads; the file is damaged or not a model");
  return header;
}

[[noreturn]] void fail_truncated(const Header& header, std::uint64_t available,
                                 const std::string& where) {
  throw ModelFileError(where + ": truncated model file: the header announces " +
                       header.length_text + " payload bytes but only " +
                       std::to_string(available) +
                       " follow; the file was cut short (copy or save it again)");
}

[[noreturn]] void fail_trailing(const Header& header, const std::string& extra,
                                const std::string& where) {
  throw ModelFileError(where + ": " + extra + " unexpected bytes after the " +
                       header.length_text +
                       "-byte payload announced by the header; the file was altered after it "
                       "was written");
}

void verify_checksum(const Header& header, const char* payload, const std::string& where) {
  const std::string checksum = hex64(fnv1a64(payload, std::size_t(header.length)));
  if (checksum != header.checksum)
    throw ModelFileError(where + ": corrupted model file: the payload checksum is " + checksum +
                         " but the header says " + header.checksum +
                         "; the file was damaged after it was written");
}

Model model_from_payload(const char* payload, std::size_t size, const std::string& where) {
  Model model = archive_from_string<Model>(payload, size, where, "model");
  // A rule from a plugin is not known until that plugin is loaded.
  if (!find_prediction_rule(model.link.name()))
    throw ModelFileError(where + ": the model's link '" + printable(model.link.name()) +
                         "' is a prediction rule that no loaded plugin registers; install the "
                         "output plugin that trained the model ('" + printable(model.output_id) +
                         "') in RADIAL_PLUGIN_PATH");
  const std::string problem = model_inconsistency(model);
  if (!problem.empty())
    throw ModelFileError(where + ": inconsistent model: " + problem +
                         "; the file was not written by this version of Radial or is damaged");
  return model;
}

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
  const Header header =
      parse_header(bytes.substr(0, std::min(bytes.size(), max_header_length + 1)), where);
  const std::uint64_t available = bytes.size() - header.size;
  if (available < header.length) fail_truncated(header, available, where);
  if (available > header.length)
    fail_trailing(header, std::to_string(available - header.length), where);
  const char* payload = bytes.data() + header.size;
  verify_checksum(header, payload, where);
  return model_from_payload(payload, std::size_t(header.length), where);
}

void save_model(const Model& model, const std::filesystem::path& file) {
  write_file_atomically(file, serialize_model(model));
}

Model load_model(const std::filesystem::path& file) {
  const std::string where = file.string();
  InputFile in = InputFile::open<ModelFileError>(file, "model file");
  // The header first, at most max_header_length + 1 bytes: nothing larger is read before the
  // magic, the format and the announced length are checked.
  std::string head(max_header_length + 1, '\0');
  std::size_t got = 0;
  bool ended = false;
  while (got < head.size() && head.find('\n') >= got) {
    const std::size_t n = in.read_some<ModelFileError>(&head[got], head.size() - got);
    if (n == 0) {
      ended = true;
      break;
    }
    got += n;
  }
  head.resize(got);
  const Header header = parse_header(head, where);
  if (in.regular()) {
    const std::uint64_t available = in.size() - std::min<std::uint64_t>(in.size(), header.size);
    if (available < header.length) fail_truncated(header, available, where);
    if (available > header.length)
      fail_trailing(header, std::to_string(available - header.length), where);
  }
  // The payload: the bytes already read after the header line, then exactly the rest.
  std::string payload = head.substr(header.size);
  if (payload.size() > header.length)
    fail_trailing(header, std::to_string(payload.size() - header.length), where);
  // A regular file was checked to hold the payload, so it is read in place; a stream grows as
  // bytes arrive, so a header that announces much more than follows costs nothing.
  const std::size_t length = std::size_t(header.length);
  std::size_t filled = payload.size();
  if (in.regular()) payload.resize(length);
  std::vector<char> chunk(in.regular() ? 0 : std::size_t(1) << 16);
  while (!ended && filled < length) {
    const std::size_t want = length - filled;
    const std::size_t n =
        in.regular() ? in.read_some<ModelFileError>(&payload[filled], want)
                     : in.read_some<ModelFileError>(chunk.data(), std::min(want, chunk.size()));
    if (n == 0) ended = true;
    if (!in.regular()) payload.append(chunk.data(), n);
    filled += n;
  }
  if (filled < length) fail_truncated(header, filled, where);
  // Nothing may follow the payload; a stream is drained up to a bound to say how much did.
  if (!ended) {
    constexpr std::size_t trailing_bound = std::size_t(1) << 20;
    char chunk[4096];
    std::size_t extra = 0;
    while (extra <= trailing_bound) {
      const std::size_t n = in.read_some<ModelFileError>(chunk, sizeof chunk);
      if (n == 0) break;
      extra += n;
    }
    if (extra > trailing_bound) fail_trailing(header, "more than " + byte_count_text(trailing_bound), where);
    if (extra > 0) fail_trailing(header, std::to_string(extra), where);
  }
  verify_checksum(header, payload.data(), where);
  return model_from_payload(payload.data(), payload.size(), where);
}

std::string serialize_state(const State& state) { return archive_to_string(state); }

State deserialize_state(const std::string& bytes, const std::string& where) {
  return archive_from_string<State>(bytes.data(), bytes.size(), where, "component state");
}

}  // namespace radial
