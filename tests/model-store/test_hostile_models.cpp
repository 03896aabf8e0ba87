// Model files from an untrusted source (docs/model-files.md): every
// length in the archive is bounded by the bytes left before anything is allocated, every model
// kind's class count is tied to its weights, link and Bayes parts, and any byte string gives a
// Model (that a Network can use) or a ModelFileError. Payloads are rewritten and framed again
// with a valid checksum, as an attacker would.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <boost/archive/text_oarchive.hpp>
#include <catch2/catch.hpp>

#include "model_archive.hpp"  // framework/src/model: archives of inconsistent models
#include "radial/network/basis.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"
#include "radial/network/prediction_rule.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "unit_gaussian.hpp"

using namespace radial;
using Catch::Matchers::Contains;

using radial::testing::UnitGaussian;

namespace {

// FNV-1a 64 as published (offset basis 14695981039346656037, prime 1099511628211).
std::string framed(const std::string& payload) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : payload) h = (h ^ c) * 1099511628211ULL;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return "RADIAL-MODEL 1 " + std::to_string(payload.size()) + " " + hex + "\n" + payload;
}

std::string payload_of(const std::string& bytes) { return bytes.substr(bytes.find('\n') + 1); }

// `bytes` with the first match of `pattern` in the payload replaced, framed again.
std::string rewritten(const std::string& bytes, const std::string& pattern,
                      const std::string& replacement) {
  const std::string payload = payload_of(bytes);
  const std::regex re(pattern);
  REQUIRE(std::regex_search(payload, re));
  return framed(std::regex_replace(payload, re, replacement, std::regex_constants::format_first_only));
}

// An archive of `m` without the store's refusal to save inconsistent models.
std::string framed_archive(const Model& m) {
  std::ostringstream out;
  {
    boost::archive::text_oarchive archive(out);
    archive << m;
  }
  return framed(out.str());
}

std::string load_error(const std::string& bytes) {
  try {
    deserialize_model(bytes, "crafted.model");
  } catch (const ModelFileError& e) {
    return e.what();
  }
  FAIL("deserialize_model did not throw ModelFileError");
  return {};
}

// Three centres in two dimensions; `link` decides the outputs and classes as the trainer
// writes them (see model_inconsistency in model_store.cpp).
Model model_of_kind(Task task, Link link, std::size_t classes) {
  Model m;
  m.task = task;
  m.feature_names = {"x1", "x2"};
  m.target_name = "y";
  m.centres.means = Matrix{{0.0, 0.0}, {1.0, 0.0}, {0.0, 2.0}};
  m.centres.shape = Shape::Spherical;
  m.centres.variances = Vector{1.0, 0.5, 2.0};
  m.basis_id = "unit-gaussian";
  m.basis_params = {{"width", ParamValue(0.5)}};
  m.basis_state = {{"note", StateValue(std::string("state"))}};
  m.plugin_versions = {{"unit-gaussian", "1.0.0"}, {"kmeans", "1.0.0"}};
  m.pipeline_text = "name = \"hostile\"\n";
  m.link = link;
  for (std::size_t k = 0; k < classes; ++k) m.class_values.push_back(double(k) - 1.0);
  if (link == Link::Bayes) {
    m.centres.mixing = Matrix::from_shape({3, classes});
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < classes; ++k) m.centres.mixing(j, k) = 1.0 / 3.0;
    m.centres.class_priors = Vector::from_shape({classes});
    m.centres.class_priors.fill(1.0 / double(classes));
    m.centres.owner = Labels{0, std::int64_t(classes) - 1, -1};
    m.weights = mixture_posterior_weights(m.centres);
    m.output_id = "bayes";
    return m;
  }
  const std::size_t columns = task == Task::Regression || link == Link::Logistic ? 1 : classes;
  m.weights = Matrix::from_shape({4, columns});
  for (std::size_t i = 0; i < m.weights.size(); ++i) m.weights.data()[i] = 0.25 * double(i) - 1.0;
  m.output_id = "test-output";
  return m;
}

struct Kind {
  const char* name;
  Task task;
  Link link;
  std::size_t classes;
};

const std::vector<Kind> valid_kinds = {
    {"regression", Task::Regression, Link::Identity, 0},
    {"logistic", Task::Classification, Link::Logistic, 2},
    {"softmax", Task::Classification, Link::Softmax, 3},
    {"least-squares classification", Task::Classification, Link::Identity, 3},
    {"least-squares, one class", Task::Classification, Link::Identity, 1},
    {"bayes", Task::Classification, Link::Bayes, 2},
    {"bayes, one class", Task::Classification, Link::Bayes, 1},
};

// `good` with `pattern` made `replacement` is refused, the message containing `phrase`.
void check_rewrite_refused(const std::string& good, const std::string& pattern,
                           const std::string& replacement, const std::string& phrase) {
  INFO("'" << pattern << "' -> '" << replacement << "'");
  CHECK_THAT(load_error(rewritten(good, pattern, replacement)), Contains(phrase));
}

}  // namespace

TEST_CASE("a model written before the bounded reader and the open links loads and saves",
          "[model-store][hostile]") {
  // Trained by `radial train docs/examples/two-class-kmeans-thin-plate.toml` (format 1).
  const std::filesystem::path file = std::filesystem::path(RADIAL_MODEL_STORE_TEST_DATA) /
                                     "two-class-thin-plate.model";
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const Model m = load_model(file);
  CHECK(m.class_values == std::vector<double>{0.0, 1.0});
  CHECK(m.class_names.empty());  // model record 1: no text labels
  CHECK(m.basis_id == "thin-plate");
  CHECK(m.weights.shape(0) == 11);
  CHECK(m.weights.shape(1) == 2);
  CHECK(m.link == Link::Identity);  // the enum's number 0 in model record 1
  // Saved again it is a model record 2 (the link by name) holding the same values, and saving
  // what that gives back changes no byte.
  const std::string saved = serialize_model(m);
  CHECK(saved != bytes.str());
  const Model again = deserialize_model(saved, "saved.model");
  CHECK(again.link == m.link);
  CHECK((again.weights == m.weights));
  CHECK((again.centres.means == m.centres.means));
  CHECK(again.pipeline_text == m.pipeline_text);
  CHECK(again.training_summary == m.training_summary);
  CHECK(serialize_model(again) == saved);
}

TEST_CASE("a thin-plate model written before the polynomial term predicts as before",
          "[model-store][hostile]") {
  // Its basis parameters have no `polynomial`: the default (-1) adds no term, the weights keep
  // their M + 1 rows, and the network is W^T [phi(z), 1] with phi = r^2 log r.
  const Model m = load_model(std::filesystem::path(RADIAL_MODEL_STORE_TEST_DATA) /
                             "two-class-thin-plate.model");
  const radial::Registry& registry = radial::testing::shipped_registry();
  const radial::ComponentInfo* info = registry.find(radial::Slot::Basis, m.basis_id);
  REQUIRE(info != nullptr);
  const auto basis = registry.make_basis(
      m.basis_id, radial::validate_params(info->params, m.basis_params, "the old model"));
  REQUIRE(basis->polynomial() == nullptr);
  basis->load_state(m.basis_state);
  const radial::Network network(m, basis);
  const radial::Matrix x = {{0.3, -1.2}, {2.0, 0.5}};
  const radial::Matrix y = network.predict(x);
  for (std::size_t n = 0; n < x.shape(0); ++n) {
    std::vector<double> z(2);
    for (std::size_t k = 0; k < 2; ++k)
      z[k] = m.standardize ? (x(n, k) - m.standardiser.mean(k)) / m.standardiser.scale(k) : x(n, k);
    for (std::size_t c = 0; c < m.weights.shape(1); ++c) {
      const std::size_t centres = m.centres.count();
      double a = m.weights(centres, c);
      for (std::size_t j = 0; j < centres; ++j) {
        const double r = std::hypot(z[0] - m.centres.means(j, 0), z[1] - m.centres.means(j, 1));
        a += m.weights(j, c) * (r > 0 ? r * r * std::log(r) : 0.0);
      }
      CHECK(y(n, c) == Approx(a).epsilon(1e-10).margin(1e-12));
    }
  }
}

TEST_CASE("string lengths beyond the rest of the payload are refused before allocating",
          "[model-store][hostile]") {
  const std::string good = serialize_model(model_of_kind(Task::Classification, Link::Softmax, 3));
  struct Case {
    const char* what;
    const char* pattern;
    const char* replacement;
  };
  // The target name, a feature name, the basis id, a map key, a state string, the pipeline.
  for (const Case& c : {Case{"target name", " 1 y ", " 3000000000 y "},
                        Case{"feature name", " 2 x1 ", " 6000000000 x1 "},
                        Case{"basis id", " 13 unit-gaussian ", " 3000000000 unit-gaussian "},
                        Case{"parameter name", " 5 width ", " 18446744073709551615 width "},
                        Case{"state string", " 5 state", " 3000000000 state"},
                        Case{"pipeline text", " 17 name", " 3000000000 name"}}) {
    INFO(c.what);
    const std::string message = load_error(rewritten(good, c.pattern, c.replacement));
    CHECK_THAT(message, Contains("crafted.model: inconsistent model: a string of") &&
                            Contains("bytes remain"));
  }
}

TEST_CASE("counts and shapes beyond the rest of the payload are refused before allocating",
          "[model-store][hostile]") {
  const std::string good = serialize_model(model_of_kind(Task::Classification, Link::Softmax, 3));
  // Feature names and class values: the store's own counts.
  check_rewrite_refused(good, " 2 2 x1 ", " 4000000000 2 x1 ",
                        "feature names claims 4000000000 entries");
  check_rewrite_refused(good, " 1 y 3 ", " 1 y 3000000000 ",
                        "class values claims 3000000000 entries");
  // The weights, 4 x 3: a shape whose values cannot follow.
  check_rewrite_refused(good, " 2 4 3 ", " 2 4000000 3000000 ",
                        "array of shape 4000000 x 3000000 claims");
  // An empty array whose other extent is implausible.
  check_rewrite_refused(good, " 2 4 3 ", " 2 0 3000000000000 ", "implausible extent");
  // Boost's own collection count (the plugin versions map).
  check_rewrite_refused(good, " 2 0 0 0 6 kmeans", " 4000000000 0 0 0 6 kmeans",
                        "a collection of 4000000000 elements");
}

TEST_CASE("collections whose entries cost more than their text are capped",
          "[model-store][hostile]") {
  // 3 MB of training report after everything else: room for the counts below, which the
  // bytes left would allow, but whose strings or map nodes would cost 16-30 times as much.
  Model m = model_of_kind(Task::Classification, Link::Softmax, 3);
  m.training_summary = std::string(3000000, ' ');
  const std::string good = serialize_model(m);
  CHECK(deserialize_model(good, "memory").training_summary.size() == 3000000);
  check_rewrite_refused(good, " 2 2 x1 ", " 1048577 2 x1 ",
                        "feature names claims 1048577 entries, more than the 1048576");
  check_rewrite_refused(good, " 2 0 0 0 6 kmeans", " 65537 0 0 0 6 kmeans",
                        "a collection of 65537 elements, more than the 65536");
}

TEST_CASE("every model kind the trainer writes passes the consistency check",
          "[model-store][hostile]") {
  for (const Kind& kind : valid_kinds) {
    INFO(kind.name);
    const Model m = model_of_kind(kind.task, kind.link, kind.classes);
    const Model loaded = deserialize_model(serialize_model(m), "memory");
    CHECK(loaded.class_values == m.class_values);
    if (kind.task == Task::Classification) {
      // The same model with text labels keeps them.
      Model named = m;
      for (std::size_t k = 0; k < named.class_values.size(); ++k) {
        named.class_values[k] = double(k);
        named.class_names.push_back("class \"" + std::string(1, char('a' + k)) + "\" \n");
      }
      CHECK(deserialize_model(serialize_model(named), "memory").class_names == named.class_names);
      // And with a nominal input and imputation values (model record 5).
      Model coded = m;
      coded.input_coding.raw_names = {"colour"};
      coded.input_coding.nominal = {{0, {"blue", "red"}}};
      coded.input_coding.unseen_as_zero = true;
      coded.feature_names = {"colour=blue", "colour=red"};
      coded.imputation = Vector{0.25, 0.75};
      const Model back = deserialize_model(serialize_model(coded), "memory");
      CHECK(back.input_coding.coded_names() == coded.feature_names);
      CHECK(back.input_coding.unseen_as_zero);
      CHECK(std::vector<double>(back.imputation.begin(), back.imputation.end()) ==
            std::vector<double>{0.25, 0.75});
    }
    // The network it makes predicts one probability or value per output, and classify never
    // points past the class list.
    const Network network(loaded, std::make_shared<UnitGaussian>());
    const Matrix outputs = network.predict(Matrix{{0.5, 0.5}, {-3.0, 4.0}});
    for (double v : outputs) CHECK(std::isfinite(v));
    if (kind.task == Task::Classification) {
      for (std::int64_t label : Network::classify(outputs))
        CHECK(std::size_t(label) < loaded.class_values.size());
    }
  }
}

TEST_CASE("the class count is tied to the weights, the link and the Bayes parts",
          "[model-store][hostile]") {
  struct Case {
    const char* problem;
    Model model;
  };
  std::vector<Case> cases;
  auto add = [&](const char* problem, Task task, Link link, std::size_t classes, auto change) {
    Model m = model_of_kind(task, link, classes);
    change(m);
    cases.push_back({problem, std::move(m)});
  };
  const auto classification = Task::Classification;
  add("lists no class values", classification, Link::Identity, 2,
      [](Model& m) { m.class_values.clear(); });
  add("2 columns for 1 classes", classification, Link::Identity, 2,
      [](Model& m) { m.class_values.pop_back(); });
  add("distinct and in increasing order", classification, Link::Softmax, 3,
      [](Model& m) { m.class_values[2] = m.class_values[1]; });
  add("distinct and in increasing order", classification, Link::Softmax, 3,
      [](Model& m) { std::swap(m.class_values[0], m.class_values[2]); });
  add("class values must be finite", classification, Link::Softmax, 3,
      [](Model& m) { m.class_values[1] = std::numeric_limits<double>::quiet_NaN(); });
  add("the logistic output is for 2 classes, the model lists 3", classification, Link::Logistic,
      2, [](Model& m) { m.class_values.push_back(7.0); });
  add("one column of weights", classification, Link::Logistic, 2,
      [](Model& m) { m.weights = Matrix::from_shape({4, 2}); m.weights.fill(0.5); });
  add("softmax weights have 3 columns for 4 classes", classification, Link::Softmax, 3,
      [](Model& m) { m.class_values.push_back(9.0); });
  add("softmax output needs at least 2 classes", classification, Link::Softmax, 1, [](Model&) {});
  const auto text_labels = [](Model& m) {
    m.class_values = {0.0, 1.0, 2.0};
    m.class_names = {"a", "b", "c"};
  };
  add("2 class names for 3 classes", classification, Link::Softmax, 3, [&](Model& m) {
    text_labels(m);
    m.class_names.pop_back();
  });
  add("class names must be distinct and in increasing order", classification, Link::Softmax, 3,
      [&](Model& m) {
        text_labels(m);
        std::swap(m.class_names[0], m.class_names[1]);
      });
  add("1 imputation values for 2 features", classification, Link::Softmax, 3,
      [](Model& m) { m.imputation = Vector{1.0}; });
  add("imputation value 1 is not finite", classification, Link::Softmax, 3,
      [](Model& m) { m.imputation = Vector{1.0, std::numeric_limits<double>::quiet_NaN()}; });
  add("the coded names of the nominal inputs differ from the feature names", classification,
      Link::Softmax, 3, [](Model& m) {
        m.input_coding.raw_names = {"x"};
        m.input_coding.nominal = {{0, {"a", "b"}}};
      });
  add("categories of nominal input 'x' are not distinct", classification, Link::Softmax, 3,
      [](Model& m) {
        m.input_coding.raw_names = {"x"};
        m.input_coding.nominal = {{0, {"b", "a"}}};
        m.feature_names = {"x=b", "x=a"};
      });
  add("class value 0 is -1 in a model with text class labels", classification, Link::Softmax, 3,
      [&](Model& m) {
        text_labels(m);
        m.class_values = {-1.0, 0.0, 1.0};
      });
  add("a regression model lists 1 class values", Task::Regression, Link::Identity, 0,
      [](Model& m) { m.class_values = {1.0}; });
  add("a regression model has link softmax", Task::Regression, Link::Identity, 0,
      [](Model& m) { m.link = Link::Softmax; });
  add("it predicts one target", Task::Regression, Link::Identity, 0,
      [](Model& m) { m.weights = Matrix::from_shape({4, 2}); m.weights.fill(0.5); });
  add("weights must be finite", classification, Link::Softmax, 3,
      [](Model& m) { m.weights(1, 2) = std::numeric_limits<double>::infinity(); });
  add("at least one column", classification, Link::Softmax, 3,
      [](Model& m) { m.weights = Matrix::from_shape({4, 0}); });
  add("expected 4 rows", classification, Link::Softmax, 3,
      [](Model& m) { m.weights = Matrix::from_shape({0, 3}); });
  add("bayes weights have 2 columns for 3 classes", classification, Link::Bayes, 2,
      [](Model& m) { m.class_values.push_back(5.0); });
  add("bayes weights are logs of probabilities, finite or -inf", classification, Link::Bayes, 2,
      [](Model& m) { m.weights(3, 0) = std::numeric_limits<double>::quiet_NaN(); });
  add("is inf; bayes weights are logs", classification, Link::Bayes, 2,
      [](Model& m) { m.weights(0, 1) = std::numeric_limits<double>::infinity(); });
  add("owner class 2 but the model has 2 classes", classification, Link::Softmax, 2,
      [](Model& m) { m.centres.owner = Labels{0, 2, -1}; });
  add("weights are 0 x 0 for 3 centres", classification, Link::Bayes, 2,
      [](Model& m) { m.weights = Matrix(); });
  // A polynomial term (radial/core/polynomial_term.hpp) of degree 1 in 2 inputs: M + 3 rows.
  add("expected 6 rows", classification, Link::Softmax, 3,
      [](Model& m) { m.basis_params["polynomial"] = std::int64_t(1); });
  // A degree past the parameter's range matches no row count (and lists no monomials).
  add("expected 3 rows", classification, Link::Softmax, 3,
      [](Model& m) { m.basis_params["polynomial"] = std::int64_t(4000000000000000000); });
  for (const Case& c : cases) {
    INFO(c.problem);
    CHECK_THAT(load_error(framed_archive(c.model)),
               Contains("crafted.model: inconsistent model:") && Contains(c.problem));
    CHECK_THROWS_WITH(serialize_model(c.model), Contains(c.problem));
  }
}

TEST_CASE("a model whose link no loaded plugin registers is refused, naming the plugin",
          "[model-store][hostile]") {
  Model m = model_of_kind(Task::Classification, Link::Softmax, 3);
  m.link = Link("no-such-rule");
  CHECK_THAT(load_error(framed_archive(m)),
             Contains("crafted.model: the model's link 'no-such-rule' is a prediction rule that "
                      "no loaded plugin registers") &&
                 Contains("('test-output')"));
  CHECK_THROWS_WITH(serialize_model(m), Contains("link 'no-such-rule'"));
}

TEST_CASE("any mutation of a model gives a usable Model or a ModelFileError",
          "[model-store][hostile]") {
  // Random edits of valid payloads of every kind, framed again with a correct checksum: digits
  // changed, bytes replaced, inserted and deleted. Whatever loads must make a Network that
  // predicts a row without crashing (InputErrors, e.g. a wrong feature count, are fine).
  std::mt19937_64 rng(20261123);
  const std::string alphabet = "0123456789 -e+.\nx";
  std::size_t loaded = 0, refused = 0;
  for (const Kind& kind : valid_kinds) {
    const std::string payload =
        payload_of(serialize_model(model_of_kind(kind.task, kind.link, kind.classes)));
    for (int trial = 0; trial < 1500; ++trial) {
      std::string p = payload;
      const int edits = 1 + int(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = std::size_t(rng() % p.size());
        const char c = alphabet[std::size_t(rng() % alphabet.size())];
        switch (rng() % 4) {
          case 0: p[at] = c; break;
          case 1: p.insert(p.begin() + std::ptrdiff_t(at), c); break;
          case 2: p.erase(at, 1 + std::size_t(rng() % 4)); break;
          default: p.insert(at, std::to_string(rng() % 5000000000ULL)); break;
        }
      }
      INFO(kind.name << ", trial " << trial);
      try {
        const Model m = deserialize_model(framed(p), "mutated.model");
        ++loaded;
        try {
          const Network network(m, std::make_shared<UnitGaussian>());
          Matrix row = Matrix::from_shape({1, m.centres.dim()});
          row.fill(0.5);
          const Matrix outputs = network.predict(row);
          if (m.task == Task::Classification)
            CHECK(std::size_t(Network::classify(outputs)(0)) < m.class_values.size());
        } catch (const InputError&) {
        }
      } catch (const ModelFileError&) {
        ++refused;
      }
    }
  }
  CHECK(refused > 0);
  CHECK(loaded + refused == valid_kinds.size() * 1500);
}
