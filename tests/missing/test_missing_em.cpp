// [data] missing = "em": the mixture EM over the observed coordinates of each row (Ghahramani &
// Jordan 1994) against an independent NumPy implementation (tests/data/missing-em/reference.py,
// which wrote the data with 20% of the cells removed, the initial parameters and the
// log-likelihood traces), data without a missing cell unchanged to the bit, and the pipeline end
// to end.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <radial/testing/paths.hpp>
#include <string>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"
#include "radial/numerics/mixture/mixture_em.hpp"
#include "radial/core/params.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

using Catch::Matchers::Contains;
using radial::Centres;
using radial::Matrix;
using radial::Shape;
using radial::Vector;

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

nlohmann::json reference(const std::string& set) {
  std::ifstream in(radial::testing::test_data("missing-em") / (set + ".json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

Matrix inputs(const nlohmann::json& j) {
  const auto& rows = j.at("inputs");
  Matrix x = Matrix::from_shape({rows.size(), rows.at(0).size()});
  for (std::size_t i = 0; i < x.shape(0); ++i)
    for (std::size_t k = 0; k < x.shape(1); ++k) {
      const auto& v = rows.at(i).at(k);
      x(i, k) = v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>();
    }
  return x;
}

Shape shape_of(const std::string& name) {
  return name == "spherical"  ? Shape::Spherical
         : name == "diagonal" ? Shape::Diagonal
                              : Shape::Full;
}

Centres components(const nlohmann::json& p, Shape shape, Vector& weights) {
  const auto& means = p.at("means");
  const std::size_t m = means.size(), d = means.at(0).size();
  Centres c;
  c.shape = shape;
  c.means = Matrix::from_shape({m, d});
  weights = Vector::from_shape({m});
  if (shape == Shape::Spherical) c.variances = Vector::from_shape({m});
  if (shape == Shape::Diagonal) c.diagonal = Matrix::from_shape({m, d});
  if (shape == Shape::Full) c.covariances = radial::Tensor3::from_shape({m, d, d});
  for (std::size_t j = 0; j < m; ++j) {
    weights(j) = p.at("weights").at(j).get<double>();
    for (std::size_t k = 0; k < d; ++k) c.means(j, k) = means.at(j).at(k).get<double>();
    const auto& s = p.at("shape").at(j);
    if (shape == Shape::Spherical) c.variances(j) = s.get<double>();
    for (std::size_t a = 0; a < d; ++a) {
      if (shape == Shape::Diagonal) c.diagonal(j, a) = s.at(a).get<double>();
      if (shape == Shape::Full)
        for (std::size_t b = 0; b < d; ++b) c.covariances(j, a, b) = s.at(a).at(b).get<double>();
    }
  }
  return c;
}

double variance(const Centres& c, std::size_t j, std::size_t a, std::size_t b) {
  if (c.shape == Shape::Spherical) return a == b ? c.variances(j) : 0.0;
  if (c.shape == Shape::Diagonal) return a == b ? c.diagonal(j, a) : 0.0;
  return c.covariances(j, a, b);
}

radial::EmOptions em_options(Shape shape, std::size_t iterations, int threads,
                             std::size_t block_rows) {
  radial::EmOptions o;
  o.shape = shape;
  o.iterations = iterations;
  o.tolerance = 0;  // the same number of steps as NumPy
  o.threads = threads;
  o.block_rows = block_rows;
  return o;
}

}  // namespace

TEST_CASE("missing-data EM equals the NumPy reference to 1e-8", "[missing][em]") {
  for (const std::string set : {"iris", "wine"}) {
    const nlohmann::json ref = reference(set);
    const Matrix x = inputs(ref);
    CHECK(ref.at("missing_fraction").get<double>() > 0.15);
    CHECK(radial::has_missing(x));
    const std::size_t iterations = ref.at("iterations").get<std::size_t>();
    for (const auto& [name, c] : ref.at("cases").items()) {
      INFO(set << " " << name);
      const Shape shape = shape_of(name);
      Vector w0;
      const Centres start = components(c.at("initial"), shape, w0);
      const radial::EmResult fit =
          radial::em_mixture(x, start, w0, em_options(shape, iterations, 1, 512));
      const auto& trace = c.at("log_likelihood");
      REQUIRE(fit.log_likelihood.size() == trace.size());
      for (std::size_t i = 0; i < trace.size(); ++i) {
        INFO("iteration " << i);
        CHECK(std::fabs(fit.log_likelihood[i] - trace.at(i).get<double>()) <= 1e-8);
      }
      CHECK(fit.floored == 0);
      CHECK(fit.empty_repairs == 0);
      Vector w;
      const Centres expected = components(c.at("final"), shape, w);
      for (std::size_t j = 0; j < w.size(); ++j) {
        CHECK(fit.weights(j) == Approx(w(j)).epsilon(1e-8));
        for (std::size_t a = 0; a < x.shape(1); ++a) {
          CHECK(fit.components.means(j, a) ==
                Approx(expected.means(j, a)).epsilon(1e-8).margin(1e-9));
          for (std::size_t b = 0; b < x.shape(1); ++b)
            CHECK(variance(fit.components, j, a, b) ==
                  Approx(variance(expected, j, a, b)).epsilon(1e-8).margin(1e-9));
        }
      }
      // Blocks with and without missing rows, summed in block order: the same bits on 1 or 2
      // threads.
      const radial::EmResult one = radial::em_mixture(x, start, w0, em_options(shape, 5, 1, 16));
      const radial::EmResult two = radial::em_mixture(x, start, w0, em_options(shape, 5, 2, 16));
      CHECK(one.log_likelihood == two.log_likelihood);
      CHECK(one.components.means == two.components.means);
    }
  }
}

TEST_CASE("data without a missing cell train to the same bits under missing = em",
          "[missing][em]") {
  const auto examples = radial::testing::source_dir() / "docs" / "examples";
  for (const char* file : {"iris-gmm-full-bayes.toml", "iris-gmm-pooled-irls.toml",
                           "ionosphere-prbf.toml", "three-class-iris.toml"}) {
    INFO(file);
    const auto plain = radial::train(radial::read_pipeline(examples / file, plugins()), plugins());
    const auto em = radial::train(
        radial::read_pipeline(examples / file, plugins(), {"data.missing=em"}), plugins());
    CHECK(em.model.missing_em);
    CHECK(em.model.centres.means == plain.model.centres.means);
    CHECK(em.model.centres.variances == plain.model.centres.variances);
    CHECK(em.model.centres.diagonal == plain.model.centres.diagonal);
    CHECK(em.model.centres.covariances == plain.model.centres.covariances);
    CHECK(em.model.centres.mixing == plain.model.centres.mixing);
    CHECK(em.model.weights == plain.model.weights);
    CHECK(em.model.standardiser.mean == plain.model.standardiser.mean);
    CHECK(em.model.standardiser.scale == plain.model.standardiser.scale);
    REQUIRE(em.report.cv);
    CHECK(em.report.cv->error_rate == plain.report.cv->error_rate);
  }
}

namespace {

// iris with the reference's missing cells, as a CSV with `?` for them.
std::filesystem::path iris_with_missing(const std::filesystem::path& dir) {
  const nlohmann::json ref = reference("iris");
  const Matrix x = inputs(ref);
  std::filesystem::create_directories(dir);
  const auto path = dir / "iris-missing.csv";
  std::ofstream out(path);
  out << "a,b,c,d,class\n";
  out.precision(17);
  for (std::size_t i = 0; i < x.shape(0); ++i) {
    for (std::size_t k = 0; k < x.shape(1); ++k) {
      if (std::isnan(x(i, k)))
        out << "?";
      else
        out << x(i, k);
      out << ",";
    }
    out << ref.at("classes").at(i).get<int>() << "\n";
  }
  return path;
}

std::string pipeline_text(const std::string& centres, const std::string& basis,
                          const std::string& output) {
  return "name = \"missing em\"\nseed = 1\n[data]\ntrain = \"iris-missing.csv\"\n"
         "standardize = true\nmissing = \"em\"\n[basis]\n" +
         basis + "\n[centres]\n" + centres + "\n[output]\n" + output + "\n[evaluate]\nfolds = 5\n";
}

}  // namespace

TEST_CASE(
    "a pipeline with missing = em trains on every row and predicts rows with missing "
    "inputs",
    "[missing][em]") {
  const auto dir = radial::testing::binary_dir() / "tests" / "missing" / "work";
  const auto data = iris_with_missing(dir);
  const std::string text =
      pipeline_text("plugin = \"gmm\"\nmode = \"per-class\"\ncount = 2\ncovariance = \"diagonal\"",
                    "plugin = \"gaussian\"\ndensity = true", "plugin = \"bayes\"");
  const auto r = radial::train(radial::parse_pipeline(text, dir / "p.toml", plugins()), plugins());
  CHECK(r.model.missing_em);
  CHECK(r.model.imputation.size() == 0);
  CHECK(r.report.missing_policy == "em");
  CHECK(r.report.train_rows == 150);
  std::size_t missing = 0;
  for (const auto& [column, count] : r.report.missing) missing += count;
  CHECK(missing > 90);
  REQUIRE(r.report.cv);
  CHECK(r.report.cv->error_rate < 0.15);
  CHECK(*r.report.train.error_rate < 0.12);

  // Through the model file, a row with missing inputs gets the posterior of the marginal
  // densities: for diagonal Gaussians the product of the observed coordinates' 1-d densities.
  const auto model_file = dir / "em.model";
  radial::save_model(r.model, model_file.string());
  const radial::Model model = radial::load_model(model_file.string());
  CHECK(model.missing_em);
  const radial::ComponentInfo* info = plugins().find(radial::Slot::Basis, model.basis_id);
  REQUIRE(info);
  auto basis = plugins().make_basis(
      model.basis_id, radial::validate_params(info->params, model.basis_params, "basis"));
  basis->load_state(model.basis_state);
  const radial::Network net(model, std::move(basis));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Matrix rows = {{5.9, nan, 4.2, nan}, {nan, nan, nan, 2.0}, {6.3, 2.9, 5.6, 1.8}};
  const Matrix p = net.predict(rows);
  const Centres& c = model.centres;
  for (std::size_t i = 0; i < rows.shape(0); ++i) {
    std::vector<double> joint(c.class_priors.size(), 0.0);
    for (std::size_t j = 0; j < c.count(); ++j) {
      double log_p = 0;
      for (std::size_t k = 0; k < 4; ++k) {
        if (std::isnan(rows(i, k))) continue;
        const double z = (rows(i, k) - model.standardiser.mean(k)) / model.standardiser.scale(k);
        const double v = c.diagonal(j, k), e = z - c.means(j, k);
        log_p += -0.5 * (std::log(2 * M_PI * v) + e * e / v);
      }
      for (std::size_t k = 0; k < joint.size(); ++k)
        joint[k] += c.class_priors(k) * c.mixing(j, k) * std::exp(log_p);
    }
    double total = 0;
    for (const double v : joint) total += v;
    for (std::size_t k = 0; k < joint.size(); ++k) {
      INFO("row " << i << " class " << k);
      CHECK(p(i, k) == Approx(joint[k] / total).epsilon(1e-10).margin(1e-14));
    }
  }
}

TEST_CASE("centre learners with missing = em: EM learners and kmeans train, subset refuses",
          "[missing][em]") {
  const auto dir = radial::testing::binary_dir() / "tests" / "missing" / "work-learners";
  iris_with_missing(dir);
  const std::string softmax =
      "plugin = \"irls\"\nlink = \"softmax\"\n[weight-penalty]\n"
      "plugin = \"weight-decay\"\nalpha = 0.001";
  for (const std::string centres :
       {"plugin = \"gmm\"\nmode = \"pooled\"\ncount = 6\ncovariance = \"full\"",
        "plugin = \"dem\"\ncount = 2", "plugin = \"prbf\"\ncount = 6",
        "plugin = \"kmeans\"\ncount = 8"}) {
    INFO(centres);
    const bool density =
        centres.find("prbf") != std::string::npos || centres.find("dem") != std::string::npos;
    const std::string text = pipeline_text(
        centres, density ? "plugin = \"gaussian\"\ndensity = true" : "plugin = \"gaussian\"",
        density ? "plugin = \"bayes\"" : softmax);
    const auto r =
        radial::train(radial::parse_pipeline(text, dir / "p.toml", plugins()), plugins());
    REQUIRE(r.report.cv);
    CHECK(r.report.cv->error_rate < 0.2);
  }
  const std::string subset = pipeline_text("plugin = \"subset\"\ncount = 10",
                                           "plugin = \"thin-plate\"", "plugin = \"least-squares\"");
  try {
    radial::train(radial::parse_pipeline(subset, dir / "p.toml", plugins()), plugins());
    FAIL("subset trained on rows with missing values");
  } catch (const radial::InputError& e) {
    CHECK_THAT(e.what(), Contains("centres subset") && Contains("missing = \"mean\""));
  }
}

TEST_CASE("the input model of independent columns: each column's observed mean and variance",
          "[missing][expected]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Matrix x = {{1.0, nan, 3.0}, {2.0, 5.0, nan}, {nan, 7.0, nan}, {6.0, 9.0, nan}};
  const Centres m = radial::fit_input_model(x, Shape::Diagonal);
  REQUIRE(m.count() == 1);
  REQUIRE(m.shape == Shape::Diagonal);
  // Column 0: 1, 2, 6 (mean 3, variance 14/3); column 1: 5, 7, 9 (7, 8/3); column 2: 3 (3, 0).
  CHECK(m.means(0, 0) == Approx(3.0).epsilon(1e-15));
  CHECK(m.diagonal(0, 0) == Approx(14.0 / 3).epsilon(1e-15));
  CHECK(m.means(0, 1) == Approx(7.0).epsilon(1e-15));
  CHECK(m.diagonal(0, 1) == Approx(8.0 / 3).epsilon(1e-15));
  CHECK(m.means(0, 2) == 3.0);
  CHECK(m.diagonal(0, 2) == 0.0);
  // The full model is the one-component missing-data EM started there.
  const Centres full = radial::fit_input_model(x, Shape::Full);
  REQUIRE(full.shape == Shape::Full);
  REQUIRE(full.covariances.shape(1) == 3);
}

TEST_CASE(
    "an activation network under missing = em keeps its input model and predicts the expected "
    "activation over the missing inputs",
    "[missing][em][expected]") {
  const auto dir = radial::testing::binary_dir() / "tests" / "missing" / "work";
  const auto data = iris_with_missing(dir);
  const std::string text = pipeline_text("plugin = \"kmeans\"\ncount = 6", "plugin = \"gaussian\"",
                                         "plugin = \"least-squares\"");
  const auto r = radial::train(radial::parse_pipeline(text, dir / "p.toml", plugins()), plugins());
  REQUIRE(r.report.cv);
  CHECK(r.report.cv->error_rate < 0.15);
  // One full-covariance Gaussian by the missing-data EM on the standardised training rows.
  const nlohmann::json ref = reference("iris");
  Matrix z = inputs(ref);
  r.model.standardiser.apply(z);
  const Centres want = radial::fit_input_model(z, Shape::Full);
  const Centres& im = r.model.input_model;
  REQUIRE(im.count() == 1);
  REQUIRE(im.shape == Shape::Full);
  CHECK(im.means == want.means);
  CHECK(im.covariances == want.covariances);

  const auto model_file = dir / "em-activation.model";
  radial::save_model(r.model, model_file.string());
  const radial::Model model = radial::load_model(model_file.string());
  CHECK(model.input_model.means == im.means);
  CHECK(model.input_model.covariances == im.covariances);
  const radial::ComponentInfo* info = plugins().find(radial::Slot::Basis, model.basis_id);
  REQUIRE(info);
  auto basis = plugins().make_basis(
      model.basis_id, radial::validate_params(info->params, model.basis_params, "basis"));
  basis->load_state(model.basis_state);
  std::shared_ptr<const radial::Basis> shared(std::move(basis));
  REQUIRE(shared->gaussian_activation());
  const radial::Network net(model, shared);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Matrix rows = {{5.9, nan, 4.2, nan}, {nan, nan, nan, 2.0}, {6.3, 2.9, 5.6, 1.8}};
  const Matrix p = net.predict(rows);
  // Prediction on raw rows: standardised, the design with the stored input model, the weights.
  Matrix s = rows;
  model.standardiser.apply(s);
  radial::DesignMatrix design(s, model.centres, *shared, false, 0);
  design.set_input_model(&model.input_model);
  const Matrix phi = design.materialise();
  for (std::size_t i = 0; i < rows.shape(0); ++i)
    for (std::size_t k = 0; k < model.weights.shape(1); ++k) {
      double y = 0;
      for (std::size_t j = 0; j < phi.shape(1); ++j) y += phi(i, j) * model.weights(j, k);
      INFO("row " << i << " output " << k);
      CHECK(p(i, k) == Approx(y).epsilon(1e-12).margin(1e-14));
    }
  // A model without an input model (as written before format 7) keeps the distance over the
  // observed inputs: the rows with missing cells change, the complete row does not.
  radial::Model old = model;
  old.input_model = Centres();
  const Matrix q = radial::Network(old, shared).predict(rows);
  CHECK(q(0, 0) != p(0, 0));
  CHECK(q(1, 0) != p(1, 0));
  for (std::size_t k = 0; k < q.shape(1); ++k) CHECK(q(2, k) == p(2, k));
}

TEST_CASE("a model of record 6 under missing = em loads without an input model and predicts "
          "as the build that wrote it",
          "[missing][em][expected]") {
  const auto dir = radial::testing::test_data("missing-em-record6");
  const radial::Model model = radial::load_model((dir / "iris-em-kmeans.model").string());
  CHECK(model.missing_em);
  CHECK(model.input_model.count() == 0);
  const radial::ComponentInfo* info = plugins().find(radial::Slot::Basis, model.basis_id);
  REQUIRE(info);
  auto basis = plugins().make_basis(
      model.basis_id, radial::validate_params(info->params, model.basis_params, "basis"));
  basis->load_state(model.basis_state);
  const radial::Network net(model, std::move(basis));
  // iris-em.csv: a header, then 4 inputs (`?` missing) and the class.
  const auto read_rows = [](const std::filesystem::path& file, bool header) {
    std::ifstream in(file);
    REQUIRE(in);
    std::string line;
    if (header) std::getline(in, line);
    std::vector<std::vector<double>> rows;
    while (std::getline(in, line)) {
      std::vector<double> row;
      std::size_t start = 0;
      for (std::size_t end; start <= line.size(); start = end + 1) {
        end = line.find(',', start);
        if (end == std::string::npos) end = line.size();
        const std::string cell = line.substr(start, end - start);
        row.push_back(cell == "?" ? std::numeric_limits<double>::quiet_NaN() : std::stod(cell));
      }
      rows.push_back(row);
    }
    return rows;
  };
  const auto data = read_rows(dir / "iris-em.csv", true);
  const auto want = read_rows(dir / "outputs.csv", false);
  REQUIRE(data.size() == 150);
  REQUIRE(want.size() == 150);
  Matrix x = Matrix::from_shape({150, 4});
  for (std::size_t i = 0; i < 150; ++i)
    for (std::size_t k = 0; k < 4; ++k) x(i, k) = data[i][k];
  const Matrix p = net.predict(x);
  REQUIRE(p.shape(1) == 3);
  for (std::size_t i = 0; i < 150; ++i)
    for (std::size_t k = 0; k < 3; ++k) {
      INFO("row " << i + 1 << " output " << k);
      CHECK(std::fabs(p(i, k) - want[i][k]) <= 1e-12);
    }
}
