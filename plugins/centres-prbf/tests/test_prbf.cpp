// Tests of the prbf centre learner. Reference parameters come from
// tests/reference/reference_prbf.py (NumPy PRBF EM and MAP EM, and scikit-learn's
// GaussianMixture for the separate-mixtures special case), run with /usr/bin/python3 into
// tests/reference/reference_prbf.json.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "prbf.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/network.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/training/trainer.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"

using radial::Centres;
using radial::FitContext;
using radial::Labels;
using radial::Matrix;
using radial::Shape;
using radial::Tensor3;
using radial::Vector;
using radial::plugins::PrbfOptions;
using radial::plugins::prbf_em;

namespace {

const nlohmann::json& reference() {
  static const nlohmann::json data = [] {
    std::ifstream in(radial::testing::source_dir() / "tests" / "reference" /
                     "reference_prbf.json");
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
  }();
  return data;
}

Matrix matrix(const nlohmann::json& rows) {
  Matrix m = Matrix::from_shape({rows.size(), rows[0].size()});
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) m(i, j) = rows[i][j].get<double>();
  return m;
}

Tensor3 tensor3(const nlohmann::json& t) {
  Tensor3 m = Tensor3::from_shape({t.size(), t[0].size(), t[0][0].size()});
  for (std::size_t i = 0; i < t.size(); ++i)
    for (std::size_t j = 0; j < t[i].size(); ++j)
      for (std::size_t k = 0; k < t[i][j].size(); ++k) m(i, j, k) = t[i][j][k].get<double>();
  return m;
}

Matrix inputs() { return matrix(reference()["x"]); }

Labels labels() {
  const auto& y = reference()["y"];
  Labels out = Labels::from_shape({y.size()});
  for (std::size_t i = 0; i < y.size(); ++i) out(i) = y[i].get<std::int64_t>();
  return out;
}

std::size_t classes() { return reference()["classes"].get<std::size_t>(); }

const nlohmann::json& find_case(const std::string& name) {
  for (const auto& c : reference()["cases"])
    if (c["name"] == name) return c;
  FAIL("no reference case " << name);
  throw std::logic_error("unreachable");
}

Shape shape_of(const nlohmann::json& c) {
  return c["shape"] == "full" ? Shape::Full : Shape::Diagonal;
}

Centres initial(const nlohmann::json& c) {
  Centres theta;
  theta.means = matrix(c["init"]["means"]);
  theta.shape = shape_of(c);
  if (theta.shape == Shape::Full) theta.covariances = tensor3(c["init"]["cov"]);
  else theta.diagonal = matrix(c["init"]["cov"]);
  theta.mixing = matrix(c["init"]["mixing"]);
  return theta;
}

PrbfOptions options_for(const nlohmann::json& c) {
  PrbfOptions options;
  options.shape = shape_of(c);
  options.iterations = c["iterations"].get<std::size_t>();
  options.tolerance = 0;          // exactly `iterations` M-steps, as the reference
  options.variance_floor = 1e-9;  // must not fire: checked below
  options.block_rows = 7;         // several blocks per class, to exercise the accumulation
  return options;
}

// The real plugin, loaded as the host loads it.
std::shared_ptr<radial::KernelPrior> bhattacharyya(const radial::Registry& registry, double alpha) {
  const radial::ComponentInfo& info = registry.require(radial::Slot::KernelPrior, "bhattacharyya");
  return registry.make_kernel_prior(
      "bhattacharyya",
      radial::validate_params(info.params,
                              {{"alpha", alpha}, {"alpha_units", std::string("absolute")}},
                              "test"));
}

const radial::Registry& load_plugins() {
  return radial::testing::plugin_registry({"kernel-prior-bhattacharyya", "centres-prbf"});
}

void check_close(const Matrix& got, const Matrix& want, double tolerance, const char* what) {
  REQUIRE(got.shape(0) == want.shape(0));
  REQUIRE(got.shape(1) == want.shape(1));
  for (std::size_t i = 0; i < got.shape(0); ++i)
    for (std::size_t j = 0; j < got.shape(1); ++j) {
      INFO(what << " (" << i << ", " << j << ")");
      CHECK(got(i, j) == Approx(want(i, j)).epsilon(tolerance).margin(tolerance));
    }
}

void check_against_reference(const nlohmann::json& c, const Centres& got, const FitContext& ctx) {
  const auto& e = c["expected"];
  check_close(got.means, matrix(e["means"]), 1e-7, "mean");
  if (got.shape == Shape::Full) {
    const Tensor3 want = tensor3(e["cov"]);
    for (std::size_t j = 0; j < got.count(); ++j)
      for (std::size_t a = 0; a < got.dim(); ++a)
        for (std::size_t b = 0; b < got.dim(); ++b) {
          INFO("covariance " << j << " (" << a << ", " << b << ")");
          CHECK(got.covariances(j, a, b) == Approx(want(j, a, b)).epsilon(1e-7).margin(1e-9));
        }
  } else {
    check_close(got.diagonal, matrix(e["cov"]), 1e-7, "variance");
  }
  check_close(got.mixing, matrix(e["mixing"]), 1e-7, "mixing");
  for (std::size_t k = 0; k < got.class_priors.size(); ++k)
    CHECK(got.class_priors(k) == Approx(e["class_priors"][k].get<double>()).epsilon(1e-15));
  const auto& trace = e["log_posterior"];
  if (!trace.empty()) {
    const auto& series = ctx.report.series.at("log_posterior");
    REQUIRE(series.size() == trace.size());
    for (std::size_t t = 0; t < series.size(); ++t) {
      INFO("L(theta) at iteration " << t);
      CHECK(series[t] == Approx(trace[t].get<double>()).epsilon(1e-9));
    }
  }
  CHECK(ctx.report.figures.at("negative_mixing_clamps") == e["clamps"].get<double>());
  CHECK(ctx.report.figures.at("variance_floor") == 0);
  CHECK(ctx.report.iterations == c["iterations"].get<std::size_t>());
}

}  // namespace

TEST_CASE("plain PRBF EM (eqs 4, 6-8) matches the NumPy reference", "[prbf]") {
  for (const char* name : {"plain-diagonal", "plain-full"}) {
    INFO(name);
    const auto& c = find_case(name);
    FitContext ctx(1);
    const Centres got = prbf_em(inputs(), labels(), classes(), initial(c), options_for(c),
                                nullptr, ctx);
    check_against_reference(c, got, ctx);
    CHECK(ctx.report.warnings.empty());
  }
}

TEST_CASE("with alpha = 0 the MAP updates reduce to plain PRBF EM", "[prbf]") {
  const auto& plugins = load_plugins();
  const auto zero = bhattacharyya(plugins, 0.0);
  REQUIRE(zero != nullptr);
  for (const char* name : {"plain-diagonal", "plain-full"}) {
    INFO(name);
    const auto& c = find_case(name);
    FitContext plain_ctx(1), map_ctx(1);
    const Centres plain =
        prbf_em(inputs(), labels(), classes(), initial(c), options_for(c), nullptr, plain_ctx);
    const Centres map =
        prbf_em(inputs(), labels(), classes(), initial(c), options_for(c), zero.get(), map_ctx);
    check_against_reference(c, map, map_ctx);  // the same parameters as plain EM's reference
    for (std::size_t i = 0; i < plain.means.size(); ++i)
      CHECK(map.means.data()[i] == Approx(plain.means.data()[i]).epsilon(1e-14));
    for (std::size_t i = 0; i < plain.mixing.size(); ++i)
      CHECK(map.mixing.data()[i] == Approx(plain.mixing.data()[i]).epsilon(1e-14).margin(1e-300));
  }
}

TEST_CASE("MAP EM with the Bhattacharyya prior (eqs 27-30) matches the NumPy reference",
          "[prbf]") {
  const auto& plugins = load_plugins();
  for (const char* name : {"map-diagonal", "map-full", "map-diagonal-strong"}) {
    INFO(name);
    const auto& c = find_case(name);
    const auto prior = bhattacharyya(plugins, c["alpha"].get<double>());
    FitContext ctx(1);
    const Centres got =
        prbf_em(inputs(), labels(), classes(), initial(c), options_for(c), prior.get(), ctx);
    check_against_reference(c, got, ctx);
    // The clamp of section 3.1 fired in these runs and is named in the report.
    bool reported = false;
    for (const auto& w : ctx.report.warnings)
      reported = reported || w.guard == "negative-mixing-clamp";
    CHECK(reported == (c["expected"]["clamps"].get<int>() > 0));
  }
}

TEST_CASE("separate mixtures are the special case of kernels owned by one class",
          "[prbf]") {
  // Kernels with pi_jk = 0 outside their class see only that class's rows, so PRBF EM is one
  // Gaussian mixture per class (scikit-learn's GaussianMixture in the reference).
  for (const char* name : {"separate-diagonal", "separate-full"}) {
    INFO(name);
    const auto& c = find_case(name);
    FitContext ctx(1);
    const Centres got = prbf_em(inputs(), labels(), classes(), initial(c), options_for(c),
                                nullptr, ctx);
    check_against_reference(c, got, ctx);
    const Matrix start = matrix(c["init"]["mixing"]);
    for (std::size_t j = 0; j < got.count(); ++j)
      for (std::size_t k = 0; k < classes(); ++k)
        if (start(j, k) == 0) CHECK(got.mixing(j, k) == 0.0);
  }
}

TEST_CASE("the fit does not depend on the thread count", "[prbf]") {
  // Fixed row blocks and an ordered reduction (radial/exec/parallel.hpp): bit-identical results.
  const auto& plugins = load_plugins();
  const auto prior = bhattacharyya(plugins, 30.0);
  for (const char* name : {"map-diagonal", "map-full"}) {
    INFO(name);
    const auto& c = find_case(name);
    FitContext one(1, 1), three(1, 3);
    const Centres a = prbf_em(inputs(), labels(), classes(), initial(c), options_for(c),
                              prior.get(), one);
    const Centres b = prbf_em(inputs(), labels(), classes(), initial(c), options_for(c),
                              prior.get(), three);
    for (std::size_t i = 0; i < a.means.size(); ++i) CHECK(a.means.data()[i] == b.means.data()[i]);
    for (std::size_t i = 0; i < a.mixing.size(); ++i)
      CHECK(a.mixing.data()[i] == b.mixing.data()[i]);
    CHECK(one.report.series.at("log_posterior") == three.report.series.at("log_posterior"));
  }
}

TEST_CASE("plain EM never decreases the log-likelihood", "[prbf]") {
  // EM's monotonicity (Dempster, Laird & Rubin 1977), from the k-means initialisation.
  for (Shape shape : {Shape::Diagonal, Shape::Full}) {
    PrbfOptions options;
    options.count = 6;
    options.shape = shape;
    options.iterations = 30;
    options.tolerance = 0;
    FitContext ctx(7);
    Centres start = radial::plugins::prbf_initial(inputs(), labels(), classes(), options, ctx);
    prbf_em(inputs(), labels(), classes(), start, options, nullptr, ctx);
    const auto& series = ctx.report.series.at("log_posterior");
    REQUIRE(series.size() == 31);
    for (std::size_t t = 1; t < series.size(); ++t) {
      INFO("iteration " << t);
      CHECK(series[t] >= series[t - 1] - 1e-9 * std::fabs(series[t - 1]));
    }
  }
}

namespace {

// A kernel prior written against the interface alone: it pulls every mean toward a fixed
// point z with `strength` pseudo-observations and leaves the mixing weights alone.
class PullToPoint final : public radial::KernelPrior {
 public:
  PullToPoint(Vector z, double strength) : z_(std::move(z)), strength_(strength) {}
  double kernel_penalty(const radial::KernelPriorInput&) const override { return 0; }
  Matrix kernel_distances(const radial::KernelPriorInput& in) const override {
    Matrix zero = Matrix::from_shape({in.count(), in.classes()});
    zero.fill(0.0);
    return zero;
  }
  void add_mixing_terms(const radial::KernelPriorInput&, Matrix&) const override {}
  void add_mean_terms(const radial::KernelPriorInput& in,
                      radial::KernelMeanTerms& terms) const override {
    for (std::size_t j = 0; j < in.count(); ++j) {
      terms.weight(j) += strength_;
      for (std::size_t a = 0; a < in.dim(); ++a) terms.target(j, a) += strength_ * z_(a);
    }
  }

 private:
  Vector z_;
  double strength_;
};

}  // namespace

TEST_CASE("prbf consumes any kernel prior through the KernelPrior interface", "[prbf]") {
  const auto& c = find_case("plain-diagonal");
  PrbfOptions options = options_for(c);
  options.iterations = 1;
  const Vector z{5.0, 3.0, 4.0, 1.0};
  const double strength = 1e4;
  const PullToPoint prior(z, strength);
  FitContext ctx(1);
  const Centres theta0 = initial(c);
  const Centres got = prbf_em(inputs(), labels(), classes(), theta0, options, &prior, ctx);
  // One M-step: mu_j = (sum_n r_nj x_n + strength z) / (sum_n r_nj + strength); with at most
  // 150 rows of responsibility, mu_j lies within 150 / (150 + 1e4) of the way from z to the
  // data range.
  for (std::size_t j = 0; j < got.count(); ++j)
    for (std::size_t a = 0; a < 4; ++a) CHECK(std::fabs(got.means(j, a) - z(a)) < 0.1);
}

TEST_CASE("the prbf plugin trains through the CentreLearner interface", "[prbf][plugin]") {
  const auto& plugins = load_plugins();
  const radial::ComponentInfo& info = plugins.require(radial::Slot::Centres, "prbf");
  for (const char* name : {"count", "covariance", "iterations", "tolerance", "init"})
    CHECK(radial::find_param(info.params, name) != nullptr);
  CHECK_THROWS_AS(radial::validate_params(info.params, {{"covariance", std::string("spherical")}},
                                          "centres prbf"),
                  radial::ParameterError);

  radial::Dataset data;
  data.inputs = inputs();
  data.classes = labels();
  data.num_classes = classes();
  data.task = radial::Task::Classification;
  const auto prior = bhattacharyya(plugins, 20.0);

  for (const char* init : {"kmeans", "gmm"})
    for (const char* covariance : {"diagonal", "full"}) {
      INFO(init << " " << covariance);
      const radial::Params params = radial::validate_params(
          info.params,
          {{"count", std::int64_t(6)}, {"covariance", std::string(covariance)},
           {"init", std::string(init)}, {"iterations", std::int64_t(15)}},
          "centres prbf");
      const auto learner = plugins.make_centre_learner("prbf", params);
      FitContext ctx(3);
      const Centres centres = learner->fit(data, prior.get(), ctx);
      CHECK_NOTHROW(centres.check());
      CHECK(centres.count() == 6);
      CHECK(centres.shape == (std::string(covariance) == "full" ? Shape::Full : Shape::Diagonal));
      REQUIRE(centres.mixing.shape(1) == 3);
      for (std::size_t k = 0; k < 3; ++k) CHECK(centres.class_priors(k) == 50.0 / 150.0);  // eq 20
      CHECK(ctx.report.series.at("log_posterior").size() == ctx.report.iterations + 1);
      CHECK(ctx.report.figures.at("kernel_prior") == 1.0);
    }

  // Inputs it cannot use.
  const auto learner = plugins.make_centre_learner(
      "prbf", radial::validate_params(info.params, {{"count", std::int64_t(151)}}, "centres prbf"));
  FitContext ctx(1);
  CHECK_THROWS_AS(learner->fit(data, nullptr, ctx), radial::InputError);
  radial::Dataset regression = data;
  regression.task = radial::Task::Regression;
  regression.num_classes = 0;
  CHECK_THROWS_AS(learner->fit(regression, nullptr, ctx), radial::InputError);
}

TEST_CASE("prbf + gaussian density + bayes: the pipeline's posterior is the PRBF's",
          "[prbf][pipeline]") {
  // The real path: the trainer with the built plugins. The posterior the network predicts must
  // equal p(C_k|x) proportional to P(C_k) sum_j pi_jk N(x | mu_j, Sigma_j) (eqs 1, 2, 5),
  // written out here from the trained model's arrays.
  radial::Registry registry;
  for (const char* file : {"libradial-centres-prbf.so", "libradial-kernel-prior-bhattacharyya.so",
                           "libradial-basis-gaussian.so", "libradial-output-bayes.so"})
    registry.load_file(radial::testing::plugin_dir() / file);
  REQUIRE(registry.find(radial::Slot::Output, "bayes") != nullptr);
  REQUIRE(registry.find(radial::Slot::Basis, "gaussian") != nullptr);
  const auto iris = radial::testing::source_dir() / "docs" / "examples" / "data" / "iris.csv";
  const std::string text = "name = \"iris prbf\"\nseed = 5\n"
                           "[data]\ntrain = \"" + iris.string() + "\"\nstandardize = true\n"
                           "[basis]\nplugin = \"gaussian\"\ndensity = true\n"
                           "[centres]\nplugin = \"prbf\"\ncount = 5\niterations = 30\n"
                           "[output]\nplugin = \"bayes\"\n"
                           "[kernel-prior]\nplugin = \"bhattacharyya\"\nalpha = 10\n";
  const radial::Pipeline pipeline =
      radial::parse_pipeline(text, radial::testing::binary_dir() / "iris-prbf.toml", registry);
  const radial::TrainingResult result = radial::train(pipeline, registry);
  const radial::Model& model = result.model;
  REQUIRE(model.link == radial::Link::Bayes);
  const Centres& c = model.centres;
  REQUIRE(c.shape == Shape::Diagonal);
  REQUIRE(c.has_mixing());
  CHECK(result.report.centres.fit.series.at("log_posterior").size() ==
        result.report.centres.fit.iterations + 1);

  const radial::ComponentInfo& basis_info = registry.require(radial::Slot::Basis, "gaussian");
  auto basis = registry.make_basis(
      "gaussian", radial::validate_params(basis_info.params, model.basis_params, "test"));
  basis->load_state(model.basis_state);
  const radial::Network network(model, basis);
  const Matrix x = inputs();
  const Matrix posterior = network.predict(x);
  REQUIRE(posterior.shape(0) == x.shape(0));
  REQUIRE(posterior.shape(1) == 3);

  const std::size_t m = c.count(), d = c.dim();
  for (std::size_t n = 0; n < x.shape(0); ++n) {
    double a[3], top = -1e300;
    for (std::size_t k = 0; k < 3; ++k) {
      double mixture = 0;  // sum_j pi_jk N(z | mu_j, Sigma_j), z the standardised row
      for (std::size_t j = 0; j < m; ++j) {
        double log_density = 0;
        for (std::size_t i = 0; i < d; ++i) {
          const double z = (x(n, i) - model.standardiser.mean(i)) / model.standardiser.scale(i);
          const double e = z - c.means(j, i), s = c.diagonal(j, i);
          log_density += -0.5 * (e * e / s + std::log(2 * M_PI * s));
        }
        mixture += c.mixing(j, k) * std::exp(log_density);
      }
      a[k] = std::log(c.class_priors(k)) + std::log(mixture);
      top = std::max(top, a[k]);
    }
    double sum = 0;
    for (double v : a) sum += std::exp(v - top);
    for (std::size_t k = 0; k < 3; ++k) {
      INFO("row " << n << " class " << k);
      CHECK(posterior(n, k) == Approx(std::exp(a[k] - top) / sum).margin(1e-9));
    }
  }
}
