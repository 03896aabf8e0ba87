// The model store: exact round trips of every part of a Model, refusal of damaged files with a
// message naming the file, and atomic writes.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/archive/text_iarchive.hpp>
#include <boost/archive/text_oarchive.hpp>
#include <catch2/catch.hpp>

#include "model_archive.hpp"  // framework/src/model: white-box tests of the archive records
#include "radial/core/errors.hpp"
#include "radial/model/model_store.hpp"
#include "radial/io/output_file.hpp"

namespace fs = std::filesystem;
using namespace radial;
using Catch::Matchers::Contains;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Values that a decimal text format can get wrong: non-terminating binary fractions, the
// extremes of the exponent range, a subnormal, signed zero.
const std::vector<double> awkward = {0.1,
                                     1e-300,
                                     -0.0,
                                     1.7976931348623157e308,
                                     -1.7976931348623157e308,
                                     4.9406564584124654e-324,
                                     2.2250738585072014e-308,
                                     1.0 / 3.0,
                                     -2.5e-17,
                                     6.02214076e23,
                                     3.141592653589793,
                                     123456789.123456789};

// Finite doubles with random bit patterns: every exponent and mantissa.
std::vector<double> random_doubles(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> out;
  while (out.size() < count) {
    const std::uint64_t b = rng();
    double x;
    std::memcpy(&x, &b, sizeof x);
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

template <class T, std::size_t N>
bool same_bits(const xt::xtensor<T, N>& a, const xt::xtensor<T, N>& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if constexpr (std::is_same_v<T, double>) {
      if (std::isnan(a.data()[i]) && std::isnan(b.data()[i])) continue;
      if (bits(a.data()[i]) != bits(b.data()[i])) return false;
    } else if (a.data()[i] != b.data()[i]) {
      return false;
    }
  }
  return true;
}

bool same_value(const StateValue& a, const StateValue& b) {
  if (a.index() != b.index()) return false;
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, double>)
          return (std::isnan(x) && std::isnan(y)) || bits(x) == bits(y);
        else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::string>)
          return x == y;
        else
          return same_bits(x, y);
      },
      a);
}

bool same_param(const ParamValue& a, const ParamValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* x = std::get_if<double>(&a)) return bits(*x) == bits(std::get<double>(b));
  return a == b;
}

Matrix matrix(std::size_t rows, std::size_t cols, const std::vector<double>& values) {
  Matrix m = Matrix::from_shape({rows, cols});
  for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = values[i % values.size()];
  return m;
}

State every_state_value() {
  State s;
  s["int-min"] = std::numeric_limits<std::int64_t>::min();
  s["int-max"] = std::numeric_limits<std::int64_t>::max();
  s["zero"] = std::int64_t(0);
  s["tenth"] = 0.1;
  s["negative zero"] = -0.0;
  s["plus inf"] = inf;
  s["minus inf"] = -inf;
  s["nan"] = std::numeric_limits<double>::quiet_NaN();
  s["text"] = std::string("two words\nand a line break, tab\t, quote \" and unicode \xc3\xa9");
  s["empty text"] = std::string();
  Vector v = Vector::from_shape({awkward.size() + 3});
  for (std::size_t i = 0; i < awkward.size(); ++i) v(i) = awkward[i];
  v(awkward.size()) = inf;
  v(awkward.size() + 1) = -inf;
  v(awkward.size() + 2) = std::numeric_limits<double>::quiet_NaN();
  s["vector"] = v;
  s["matrix"] = matrix(40, 25, random_doubles(1000, 7));
  s["empty matrix"] = Matrix::from_shape({0, 3});
  Tensor3 t = Tensor3::from_shape({2, 3, 4});
  for (std::size_t i = 0; i < t.size(); ++i) t.data()[i] = awkward[i % awkward.size()] * double(i);
  s["tensor"] = t;
  return s;
}

// Three centres in two dimensions with the given shape; class structure when `bayes`.
Model make_model(Shape shape, bool bayes) {
  Model m;
  m.task = Task::Classification;
  m.feature_names = {"sepal length", ""};
  m.target_name = "class";
  m.class_values = {-1.0, 0.1};
  m.standardize = true;
  m.standardiser.mean = Vector{0.1, -0.0};
  m.standardiser.scale = Vector{1e-300, 1.7976931348623157e308};

  Centres& c = m.centres;
  c.means = matrix(3, 2, awkward);
  c.shape = shape;
  if (shape == Shape::Spherical) c.variances = Vector{0.1, 4.9406564584124654e-324, 1.0 / 3.0};
  if (shape == Shape::Diagonal) c.diagonal = matrix(3, 2, {0.1, 1e-300, 1.0 / 3.0, 7e22});
  if (shape == Shape::Full) {
    c.covariances = Tensor3::from_shape({3, 2, 2});
    for (std::size_t j = 0; j < 3; ++j) {
      c.covariances(j, 0, 0) = 0.1 * double(j + 1);
      c.covariances(j, 1, 1) = 1.0 / 3.0;
      c.covariances(j, 0, 1) = c.covariances(j, 1, 0) = 0.01 / double(j + 1);
    }
  }
  if (bayes) {
    c.mixing = matrix(3, 2, {0.25, 0.5, 0.75, 0.0, 0.0, 0.5});
    c.owner = Labels{0, 1, -1};
    c.class_priors = Vector{0.375, 0.625};
    m.link = Link::Bayes;
    m.weights = mixture_posterior_weights(c);
    m.output_id = "bayes";
  } else {
    m.link = Link::Softmax;
    m.output_id = "irls";
    m.weights = matrix(4, 2, random_doubles(8, 11));
  }
  m.basis_id = "gaussian";
  m.basis_params = {{"count", ParamValue(std::int64_t(-7))},
                    {"width", ParamValue(0.1)},
                    {"density", ParamValue(true)},
                    {"normalise", ParamValue(false)},
                    {"rule", ParamValue(std::string("netlab width"))}};
  m.basis_state = every_state_value();
  m.pipeline_text = "name = \"x\"\n[basis]\nplugin = \"gaussian\"\n\n# trailing\n";
  m.radial_version = "0.1.0";
  m.plugin_versions = {{"gaussian", "1.0.0"}, {"irls", "1.2.3"}};
  m.seed = std::numeric_limits<std::uint64_t>::max();
  m.training_summary = "{\"iterations\": 12, \"warnings\": []}";
  return m;
}

void require_same(const Model& a, const Model& b) {
  CHECK(a.task == b.task);
  CHECK(a.feature_names == b.feature_names);
  CHECK(a.target_name == b.target_name);
  REQUIRE(a.class_values.size() == b.class_values.size());
  for (std::size_t i = 0; i < a.class_values.size(); ++i)
    CHECK(bits(a.class_values[i]) == bits(b.class_values[i]));
  CHECK(a.standardize == b.standardize);
  CHECK(same_bits(a.standardiser.mean, b.standardiser.mean));
  CHECK(same_bits(a.standardiser.scale, b.standardiser.scale));
  CHECK(same_bits(a.centres.means, b.centres.means));
  CHECK(a.centres.shape == b.centres.shape);
  CHECK(same_bits(a.centres.variances, b.centres.variances));
  CHECK(same_bits(a.centres.diagonal, b.centres.diagonal));
  CHECK(same_bits(a.centres.covariances, b.centres.covariances));
  CHECK(same_bits(a.centres.mixing, b.centres.mixing));
  CHECK(same_bits(a.centres.owner, b.centres.owner));
  CHECK(same_bits(a.centres.class_priors, b.centres.class_priors));
  CHECK(a.basis_id == b.basis_id);
  REQUIRE(a.basis_params.size() == b.basis_params.size());
  for (const auto& [key, value] : a.basis_params) {
    INFO("basis parameter " << key);
    REQUIRE(b.basis_params.count(key) == 1);
    CHECK(same_param(value, b.basis_params.at(key)));
  }
  REQUIRE(a.basis_state.size() == b.basis_state.size());
  for (const auto& [key, value] : a.basis_state) {
    INFO("state entry " << key);
    REQUIRE(b.basis_state.count(key) == 1);
    CHECK(same_value(value, b.basis_state.at(key)));
  }
  CHECK(a.output_id == b.output_id);
  CHECK(a.link == b.link);
  CHECK(same_bits(a.weights, b.weights));
  CHECK(a.pipeline_text == b.pipeline_text);
  CHECK(a.radial_version == b.radial_version);
  CHECK(a.plugin_versions == b.plugin_versions);
  CHECK(a.seed == b.seed);
  CHECK(a.training_summary == b.training_summary);
}

// FNV-1a 64 as specified (offset basis 14695981039346656037, prime 1099511628211), written
// here independently of the store.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << std::hex;
  out.width(16);
  out.fill('0');
  out << v;
  return out.str();
}

std::string frame(const std::string& payload, const std::string& format = "1") {
  return "RADIAL-MODEL " + format + " " + std::to_string(payload.size()) + " " +
         hex(fnv1a(payload)) + "\n" + payload;
}

struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("radial-model-store-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
};

void write_bytes(const fs::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The ModelFileError message from loading `file`; fails the test when nothing is thrown.
std::string load_error(const fs::path& file) {
  try {
    load_model(file);
  } catch (const ModelFileError& e) {
    return e.what();
  }
  FAIL("load_model(" << file << ") did not throw ModelFileError");
  return {};
}

// `bytes` written to `file` are refused with a message that names the file and says `what`.
void check_refused(const fs::path& file, const std::string& bytes, const std::string& what) {
  write_bytes(file, bytes);
  const std::string message = load_error(file);
  CHECK_THAT(message, Contains(file.string()));
  CHECK_THAT(message, Contains(what));
}

}  // namespace

TEST_CASE("FNV-1a reference implementation of this test matches the published vectors",
          "[model-store]") {
  CHECK(fnv1a("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("models of every centre shape round-trip exactly through a file", "[model-store]") {
  TempDir dir;
  struct Case {
    Shape shape;
    bool bayes;
  };
  for (const Case& c : {Case{Shape::None, false}, Case{Shape::Spherical, false},
                        Case{Shape::Diagonal, false}, Case{Shape::Full, false},
                        Case{Shape::Full, true}, Case{Shape::Spherical, true}}) {
    INFO("shape " << to_string(c.shape) << (c.bayes ? " with mixing, owners and priors" : ""));
    const Model model = make_model(c.shape, c.bayes);
    const fs::path file = dir.path / "model.radial";
    save_model(model, file);
    const Model loaded = load_model(file);
    require_same(model, loaded);
    // Saving what was loaded gives the same bytes: nothing is lost or reformatted.
    CHECK(serialize_model(loaded) == read_bytes(file));
    CHECK(dir.entries() == std::vector<std::string>{"model.radial"});
  }
}

TEST_CASE("the header line is magic, format, payload length and FNV-1a of the payload",
          "[model-store]") {
  const std::string bytes = serialize_model(make_model(Shape::Diagonal, false));
  std::smatch match;
  const std::string first_line = bytes.substr(0, bytes.find('\n') + 1);
  REQUIRE(std::regex_match(first_line, match,
                           std::regex("RADIAL-MODEL 1 ([0-9]+) ([0-9a-f]{16})\n")));
  const std::string payload = bytes.substr(first_line.size());
  CHECK(std::stoull(match[1].str()) == payload.size());
  CHECK(match[2].str() == hex(fnv1a(payload)));
  CHECK(model_format_version == 1);
  // The payload is a Boost text archive.
  CHECK(payload.find("serialization::archive") != std::string::npos);
}

TEST_CASE("doubles survive bit-exactly, including random bit patterns", "[model-store]") {
  State state;
  const std::vector<double> values = random_doubles(20000, 2024);
  Vector v = Vector::from_shape({values.size()});
  std::copy(values.begin(), values.end(), v.begin());
  state["random"] = v;
  for (std::size_t i = 0; i < awkward.size(); ++i) state["awkward " + std::to_string(i)] = awkward[i];
  const State loaded = deserialize_state(serialize_state(state), "memory");
  REQUIRE(loaded.size() == state.size());
  const Vector& back = std::get<Vector>(loaded.at("random"));
  REQUIRE(back.size() == values.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < values.size(); ++i) mismatches += bits(back(i)) != bits(values[i]);
  CHECK(mismatches == 0);
  for (std::size_t i = 0; i < awkward.size(); ++i)
    CHECK(bits(std::get<double>(loaded.at("awkward " + std::to_string(i)))) == bits(awkward[i]));
  CHECK(std::signbit(std::get<double>(loaded.at("awkward 2"))));
}

TEST_CASE("a state with every kind of value round-trips", "[model-store]") {
  const State state = every_state_value();
  const State loaded = deserialize_state(serialize_state(state), "memory");
  REQUIRE(loaded.size() == state.size());
  for (const auto& [key, value] : state) {
    INFO("state entry " << key);
    REQUIRE(loaded.count(key) == 1);
    CHECK(same_value(value, loaded.at(key)));
  }
  CHECK(std::get<Matrix>(loaded.at("empty matrix")).shape(1) == 3);
  CHECK(std::isinf(std::get<double>(loaded.at("minus inf"))));
  CHECK(std::get<double>(loaded.at("minus inf")) < 0);
  CHECK(std::isnan(std::get<double>(loaded.at("nan"))));
}

TEST_CASE("a damaged state names where it came from", "[model-store]") {
  const std::string good = serialize_state(every_state_value());
  CHECK_THROWS_WITH(deserialize_state("", "plugin gaussian state"),
                    Contains("plugin gaussian state"));
  CHECK_THROWS_AS(deserialize_state(good.substr(0, good.size() / 2), "plugin gaussian state"),
                  ModelFileError);
  CHECK_THROWS_WITH(deserialize_state(good.substr(0, good.size() / 2), "plugin gaussian state"),
                    Contains("plugin gaussian state"));
  CHECK_THROWS_WITH(deserialize_state(good + " 17", "plugin gaussian state"),
                    Contains("unread data"));
}

TEST_CASE("truncated model files are refused before the archive is read", "[model-store]") {
  TempDir dir;
  const std::string bytes = serialize_model(make_model(Shape::Full, true));
  const std::size_t header = bytes.find('\n') + 1;
  const fs::path file = dir.path / "cut.radial";
  for (std::size_t size : {std::size_t(3), std::size_t(13), std::size_t(20), header - 1, header,
                           header + 1, header + (bytes.size() - header) / 2, bytes.size() - 1}) {
    INFO("cut at " << size << " of " << bytes.size() << " bytes");
    check_refused(file, bytes.substr(0, size), "truncated");
  }
}

TEST_CASE("a flipped byte anywhere in the payload is caught by the checksum", "[model-store]") {
  TempDir dir;
  const std::string bytes = serialize_model(make_model(Shape::Spherical, false));
  const std::size_t header = bytes.find('\n') + 1;
  const fs::path file = dir.path / "flipped.radial";
  for (std::size_t at : {header, header + 40, (header + bytes.size()) / 2, bytes.size() - 2,
                         bytes.size() - 1}) {
    INFO("byte " << at << " of " << bytes.size());
    std::string damaged = bytes;
    damaged[at] = char(damaged[at] ^ 0x04);
    check_refused(file, damaged, "corrupted");
  }
}

TEST_CASE("newer formats, foreign files and trailing garbage are refused", "[model-store]") {
  TempDir dir;
  const std::string bytes = serialize_model(make_model(Shape::None, false));
  const fs::path file = dir.path / "model.radial";

  std::string newer = bytes;
  newer.replace(0, std::strlen("RADIAL-MODEL 1"), "RADIAL-MODEL 2");
  write_bytes(file, newer);
  CHECK_THAT(load_error(file),
             Contains(file.string()) &&
                 Contains("written by a newer Radial: format 2, this build reads up to 1"));

  write_bytes(file, "x1,x2,class\n0.5,1.5,1\n");
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("not a Radial model"));

  std::string other_magic = bytes;
  other_magic[11] = 'X';  // RADIAL-MODEX
  write_bytes(file, other_magic);
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("not a Radial model"));

  write_bytes(file, bytes + "\n");
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("1 unexpected bytes after"));

  std::string bad_length = bytes;
  bad_length.replace(0, bytes.find('\n'), "RADIAL-MODEL 1 -5 0123456789abcdef");
  write_bytes(file, bad_length);
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("malformed model header"));

  write_bytes(file, "");
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("empty"));

  CHECK_THAT(load_error(dir.path), Contains(dir.path.string()) && Contains("directory"));
  CHECK_THAT(load_error(dir.path / "missing.radial"),
             Contains((dir.path / "missing.radial").string()) && Contains("no such"));
}

TEST_CASE("a well-framed payload that is not a consistent model is a ModelFileError",
          "[model-store]") {
  TempDir dir;
  const fs::path file = dir.path / "model.radial";

  // A State archive where a Model archive is expected.
  write_bytes(file, frame(serialize_state(every_state_value())));
  CHECK_THAT(load_error(file), Contains(file.string()));

  // A Model archive cut short, framed with a valid header.
  const std::string bytes = serialize_model(make_model(Shape::Diagonal, false));
  const std::string payload = bytes.substr(bytes.find('\n') + 1);
  write_bytes(file, frame(payload.substr(0, payload.size() * 2 / 3)));
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("cannot read the model"));

  // Archives that Boost reads but whose parts disagree.
  auto framed_archive = [](const Model& m) {
    std::ostringstream out;
    {
      boost::archive::text_oarchive archive(out);
      archive << m;
    }
    return frame(out.str());
  };
  Model wrong_weights = make_model(Shape::Spherical, false);
  wrong_weights.weights = matrix(3, 2, {1.0});  // 3 centres need 4 rows
  write_bytes(file, framed_archive(wrong_weights));
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("inconsistent model") &&
                                   Contains("expected 4 rows"));

  Model bad_mixing = make_model(Shape::Spherical, true);
  bad_mixing.centres.mixing(0, 0) = 0.5;  // column 0 sums to 1.25
  write_bytes(file, framed_archive(bad_mixing));
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("mixing weights of class 0"));

  Model bad_variance = make_model(Shape::Spherical, false);
  bad_variance.centres.variances(1) = -1.0;
  write_bytes(file, framed_archive(bad_variance));
  CHECK_THAT(load_error(file), Contains(file.string()) && Contains("centre 1"));

  // The same inconsistencies are refused when saving.
  CHECK_THROWS_WITH(serialize_model(wrong_weights), Contains("expected 4 rows"));
}

TEST_CASE("array records check rank and shape on load", "[model-store]") {
  std::ostringstream out;
  {
    boost::archive::text_oarchive archive(out);
    const Matrix m = matrix(2, 3, {1.5, -2.0});
    archive << m;
  }
  {
    std::istringstream in(out.str());
    boost::archive::text_iarchive archive(in);
    Vector v;
    CHECK_THROWS_WITH(archive >> v, Contains("rank 2 where rank 1 was expected"));
  }
  {
    // Claiming more values than follow ends at the end of the archive, not in an allocation.
    std::string text = out.str();
    const std::string shape = " 2 2 3 ";
    const std::size_t at = text.find(shape);
    REQUIRE(at != std::string::npos);
    text.replace(at, shape.size(), " 2 2 1000000000000 ");
    std::istringstream in(text);
    boost::archive::text_iarchive archive(in);
    Matrix m;
    CHECK_THROWS(archive >> m);
  }
  {
    std::istringstream in(out.str());
    boost::archive::text_iarchive archive(in);
    Matrix m;
    archive >> m;
    CHECK(m.shape(0) == 2);
    CHECK(m.shape(1) == 3);
    CHECK(m(1, 2) == -2.0);
  }
}

TEST_CASE("write_file_atomically replaces the file and leaves nothing else", "[model-store]") {
  TempDir dir;
  const fs::path file = dir.path / "report.json";
  write_file_atomically(file, "first");
  CHECK(read_bytes(file) == "first");
  write_file_atomically(file, std::string(100000, 'z'));
  CHECK(read_bytes(file) == std::string(100000, 'z'));
  write_file_atomically(file, "");
  CHECK(read_bytes(file).empty());
  // The replacement keeps the permissions of the file it replaces.
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  write_file_atomically(file, "private");
  CHECK(read_bytes(file) == "private");
  CHECK(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
  CHECK(dir.entries() == std::vector<std::string>{"report.json"});
}

TEST_CASE("a failed write keeps the old file and removes the temporary", "[model-store]") {
  TempDir dir;
  const fs::path file = dir.path / "model.radial";
  const Model model = make_model(Shape::Full, true);
  save_model(model, file);
  const std::string before = read_bytes(file);

  SECTION("the write itself fails (file size limit)") {
    // A file size limit makes write() fail with EFBIG part-way, as a full disk would.
    rlimit old_limit{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old_limit;
    small.rlim_cur = 1024;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::string message;
    try {
      write_file_atomically(file, std::string(50000, 'q'));
    } catch (const InputError& e) {
      message = e.what();
    }
    ::setrlimit(RLIMIT_FSIZE, &old_limit);
    std::signal(SIGXFSZ, old_handler);
    CHECK_THAT(message, Contains(file.string()) && Contains("writing"));
  }
  SECTION("the rename fails (a directory is in the way)") {
    const fs::path folder = dir.path / "taken";
    fs::create_directory(folder);
    fs::path inside = folder / "keep";
    write_bytes(inside, "kept");
    CHECK_THROWS_WITH(save_model(model, folder),
                      Contains(folder.string()) && Contains("replacing the file"));
    CHECK(read_bytes(inside) == "kept");
    fs::remove_all(folder);
  }
  SECTION("the folder does not exist") {
    const fs::path nowhere = dir.path / "no-such-folder" / "model.radial";
    CHECK_THROWS_AS(write_file_atomically(nowhere, "x"), InputError);
    CHECK_THROWS_WITH(write_file_atomically(nowhere, "x"), Contains(nowhere.string()));
    CHECK_FALSE(fs::exists(dir.path / "no-such-folder"));
  }
  CHECK(read_bytes(file) == before);
  CHECK(dir.entries() == std::vector<std::string>{"model.radial"});
  require_same(model, load_model(file));
}

TEST_CASE("concurrent writers to one file never mix their contents", "[model-store]") {
  TempDir dir;
  const fs::path file = dir.path / "shared.txt";
  constexpr int writers = 6, rounds = 15;
  std::vector<std::string> candidates;
  for (int w = 0; w < writers; ++w) candidates.push_back(std::string(20000 + w, char('a' + w)));
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int r = 0; r < rounds; ++r) write_file_atomically(file, candidates[std::size_t(w)]);
    });
  for (auto& t : threads) t.join();
  const std::string result = read_bytes(file);
  CHECK(std::find(candidates.begin(), candidates.end(), result) != candidates.end());
  CHECK(dir.entries() == std::vector<std::string>{"shared.txt"});
}
