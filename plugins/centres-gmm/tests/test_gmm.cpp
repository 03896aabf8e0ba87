// gmm: EM against scikit-learn from the same initial parameters (reference_gmm.py), monotone
// log-likelihood, K-d tree E-step equal to brute force at the exact threshold, and the plugin
// as the host loads it (pooled and per-class centres, errors).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include <radial/data_reader.hpp>
#include <radial/errors.hpp>
#include <radial/numerics/kdtree.hpp>
#include <radial/numerics/mixture_em.hpp>
#include <radial/registry.hpp>
#include <radial/testing/paths.hpp>

namespace {

using radial::Centres;
using radial::Matrix;
using radial::Shape;
using radial::Vector;

// Standardised iris features (population standard deviation, as reference_gmm.py).
Matrix iris_standardised(radial::Labels* classes = nullptr) {
  const radial::Dataset data =
      radial::read_csv(radial::testing::source_dir() / "docs/examples/data/iris.csv");
  Matrix x = data.inputs;
  const std::size_t n = x.shape(0), d = x.shape(1);
  for (std::size_t k = 0; k < d; ++k) {
    double mean = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mean += x(i, k) / double(n);
    for (std::size_t i = 0; i < n; ++i) var += (x(i, k) - mean) * (x(i, k) - mean) / double(n);
    for (std::size_t i = 0; i < n; ++i) x(i, k) = (x(i, k) - mean) / std::sqrt(var);
  }
  if (classes) *classes = data.classes;
  return x;
}

// Initial parameters of reference_gmm.py: means at the listed rows, weights 1/m, unit shapes.
Centres initial(const Matrix& x, const std::vector<std::size_t>& rows, Shape shape) {
  const std::size_t m = rows.size(), d = x.shape(1);
  Centres c;
  c.shape = shape;
  c.means = Matrix::from_shape({m, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k) c.means(j, k) = x(rows[j], k);
  if (shape == Shape::Spherical) c.variances = xt::ones<double>({m});
  if (shape == Shape::Diagonal) c.diagonal = xt::ones<double>({m, d});
  if (shape == Shape::Full) {
    c.covariances = xt::zeros<double>({m, d, d});
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t k = 0; k < d; ++k) c.covariances(j, k, k) = 1.0;
  }
  return c;
}

nlohmann::json reference() {
  std::ifstream in(radial::testing::source_dir() / "plugins/centres-gmm/tests/reference_gmm.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

radial::Registry& registry() {
  static radial::Registry r;
  static bool loaded = false;
  if (!loaded) {
    r.load_file(radial::testing::plugin_dir() / "libradial-centres-gmm.so");
    loaded = true;
  }
  return r;
}

std::shared_ptr<radial::CentreLearner> make_gmm(std::map<std::string, radial::ParamValue> given) {
  const auto& info = registry().require(radial::Slot::Centres, "gmm");
  return registry().make_centre_learner("gmm",
                                        radial::validate_params(info.params, given, "plugin gmm"));
}

}  // namespace

TEST_CASE("EM equals scikit-learn's GaussianMixture from the same start", "[gmm][sklearn]") {
  const Matrix x = iris_standardised();
  const nlohmann::json ref = reference();
  const std::vector<std::size_t> rows = ref["rows"].get<std::vector<std::size_t>>();
  const std::size_t m = rows.size(), d = x.shape(1);
  const std::map<std::string, Shape> kinds = {
      {"spherical", Shape::Spherical}, {"diag", Shape::Diagonal}, {"full", Shape::Full}};
  for (const auto& [name, shape] : kinds) {
    SECTION(name) {
      radial::EmOptions options;
      options.shape = shape;
      options.iterations = ref["iterations"].get<std::size_t>();
      options.tolerance = 0;
      options.covariance_floor = 1e-12;
      const radial::EmResult fit =
          radial::em_mixture(x, initial(x, rows, shape), xt::ones<double>({m}) / double(m), options);
      const nlohmann::json& r = ref[name];
      REQUIRE(fit.iterations == r["n_iter"].get<std::size_t>());
      CHECK(fit.floored == 0);
      for (std::size_t j = 0; j < m; ++j) {
        CHECK(fit.weights(j) == Approx(r["weights"][j].get<double>()).margin(1e-6));
        for (std::size_t k = 0; k < d; ++k)
          CHECK(fit.components.means(j, k) == Approx(r["means"][j][k].get<double>()).margin(1e-6));
        if (shape == Shape::Spherical)
          CHECK(fit.components.variances(j) ==
                Approx(r["covariances"][j].get<double>()).margin(1e-6));
        if (shape == Shape::Diagonal)
          for (std::size_t k = 0; k < d; ++k)
            CHECK(fit.components.diagonal(j, k) ==
                  Approx(r["covariances"][j][k].get<double>()).margin(1e-6));
        if (shape == Shape::Full)
          for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = 0; b < d; ++b)
              CHECK(fit.components.covariances(j, a, b) ==
                    Approx(r["covariances"][j][a][b].get<double>()).margin(1e-6));
      }
      CHECK(fit.final_log_likelihood == Approx(r["log_likelihood"].get<double>()).epsilon(1e-9));
      // The trace ends with the log-likelihood of the returned parameters.
      CHECK(fit.final_log_likelihood ==
            Approx(radial::mixture_log_likelihood(x, fit.components, fit.weights)).epsilon(1e-12));
    }
  }
}

TEST_CASE("EM log-likelihood never decreases", "[gmm]") {
  // Data from a known mixture of three 3-D Gaussians; k-means start, every covariance type.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z(0.0, 1.0);
  const std::size_t n = 600, d = 3;
  Matrix x = Matrix::from_shape({n, d});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) x(i, k) = 2.0 * double(i % 3) * (k == i % 3) + z(rng) * (0.5 + 0.3 * k);
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    radial::EmOptions options;
    options.shape = shape;
    options.iterations = 60;
    options.tolerance = 0;
    std::mt19937_64 init_rng(11);
    const radial::EmResult fit = radial::em_mixture_kmeans(x, 5, options, init_rng);
    REQUIRE(fit.log_likelihood.size() == 61);
    CHECK(fit.floored == 0);
    CHECK(fit.empty_repairs == 0);
    for (std::size_t i = 1; i < fit.log_likelihood.size(); ++i)
      CHECK(fit.log_likelihood[i] >= fit.log_likelihood[i - 1] - 1e-9 * std::fabs(fit.log_likelihood[i - 1]));
    CHECK(fit.log_likelihood.back() > fit.log_likelihood.front());
  }
}

TEST_CASE("K-d tree E-step at the exact threshold equals brute force", "[gmm][kdtree]") {
  const Matrix x = iris_standardised();
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    radial::EmOptions options;
    options.shape = shape;
    options.iterations = 5;
    options.tolerance = 0;
    std::mt19937_64 rng(3);
    const radial::EmResult fit = radial::em_mixture_kmeans(x, 6, options, rng);
    const radial::Vector lw = xt::log(fit.weights);

    radial::GaussianBoxTreeOptions tree_options;
    tree_options.threshold = radial::GaussianBoxTree::exact_threshold(fit.components, x);
    tree_options.leaf_size = 1;
    const radial::GaussianBoxTree tree(fit.components, x, tree_options);
    // 2-sigma boxes (c = 4) leave out some Gaussians for some rows.
    radial::GaussianBoxTreeOptions small = tree_options;
    small.threshold = 4.0;
    const radial::GaussianBoxTree loose(fit.components, x, small);
    CHECK(loose.mean_candidates() < double(fit.components.count()));

    radial::MixtureCounts brute, fast;
    radial::EStepOptions e;
    const radial::EStepSummary sb = radial::e_step(x, fit.components, lw, nullptr, e, brute);
    e.tree = &tree;
    const radial::EStepSummary st = radial::e_step(x, fit.components, lw, nullptr, e, fast);
    CHECK(st.mean_candidates == Approx(double(fit.components.count())));
    CHECK(st.log_likelihood == Approx(sb.log_likelihood).epsilon(1e-10));
    for (std::size_t j = 0; j < brute.c1.size(); ++j) {
      CHECK(fast.c1(j) == Approx(brute.c1(j)).epsilon(1e-9).margin(1e-12));
      for (std::size_t k = 0; k < x.shape(1); ++k)
        CHECK(fast.cx(j, k) == Approx(brute.cx(j, k)).epsilon(1e-9).margin(1e-10));
    }
  }
}

TEST_CASE("K-d tree with infinite threshold is a single exact leaf", "[gmm][kdtree]") {
  const Matrix x = iris_standardised();
  Centres c = initial(x, {0, 50, 100}, Shape::Diagonal);
  radial::GaussianBoxTreeOptions o;
  o.threshold = std::numeric_limits<double>::infinity();
  const radial::GaussianBoxTree tree(c, x, o);
  CHECK(tree.exact());
  CHECK(tree.leaf_count() == 1);
  // Boxes are mu -/+ sigma sqrt(c) (eq. 2): with c = 4 and unit variances, mu -/+ 2.
  o.threshold = 4.0;
  const radial::GaussianBoxTree small(c, x, o);
  CHECK(small.lower()(1, 2) == Approx(x(50, 2) - 2.0));
  CHECK(small.upper()(1, 2) == Approx(x(50, 2) + 2.0));
  o.threshold = 0.0;
  CHECK_THROWS_AS(radial::GaussianBoxTree(c, x, o), radial::ParameterError);
}

TEST_CASE("gmm plugin: pooled and per-class centres", "[gmm][plugin]") {
  radial::Dataset data = radial::read_csv(radial::testing::source_dir() / "docs/examples/data/iris.csv");
  data.inputs = iris_standardised();

  SECTION("pooled, full covariances") {
    auto learner = make_gmm({{"count", std::int64_t(4)}, {"covariance", std::string("full")}});
    radial::FitContext ctx(7);
    const Centres c = learner->fit(data, nullptr, ctx);
    CHECK(c.count() == 4);
    CHECK(c.shape == Shape::Full);
    CHECK_FALSE(c.has_mixing());
    const auto& trace = ctx.report.series.at("log_likelihood");
    std::string guards;
    for (const auto& w : ctx.report.warnings) guards += w.guard + ": " + w.message + "\n";
    INFO(guards);
    for (std::size_t i = 1; i < trace.size(); ++i) CHECK(trace[i] >= trace[i - 1] - 1e-9 * std::fabs(trace[i - 1]));
    CHECK(ctx.report.figures.at("log_likelihood") == Approx(trace.back()));
    // With this seed one component settles on 3 rows in 4-D: its covariance is singular and
    // the floor must fire and be named in the report.
    bool floor_named = false;
    for (const auto& w : ctx.report.warnings) floor_named = floor_named || w.guard == "covariance-floor";
    CHECK(floor_named);
  }
  SECTION("per-class, diagonal, with the K-d tree") {
    auto learner = make_gmm({{"count", std::int64_t(2)}, {"mode", std::string("per-class")},
                             {"kdtree", true}});
    radial::FitContext ctx(7);
    const Centres c = learner->fit(data, nullptr, ctx);
    REQUIRE(c.count() == 6);
    CHECK(c.shape == Shape::Diagonal);
    REQUIRE(c.has_mixing());
    CHECK_NOTHROW(c.check());
    for (std::size_t j = 0; j < 6; ++j) {
      CHECK(c.owner(j) == std::int64_t(j / 2));
      for (std::size_t k = 0; k < 3; ++k)
        if (k != j / 2) CHECK(c.mixing(j, k) == 0.0);
    }
    for (std::size_t k = 0; k < 3; ++k) CHECK(c.class_priors(k) == Approx(50.0 / 150.0));
    CHECK(ctx.report.series.count("log_likelihood.class2") == 1);
  }
  SECTION("a class with fewer rows than count is refused, naming the class") {
    auto learner = make_gmm({{"count", std::int64_t(60)}, {"mode", std::string("per-class")}});
    radial::FitContext ctx(7);
    try {
      learner->fit(data, nullptr, ctx);
      FAIL("expected InputError");
    } catch (const radial::InputError& e) {
      CHECK_THAT(e.what(), Catch::Matchers::Contains("class 0 has 50 training rows"));
    }
  }
  SECTION("the seed decides the result") {
    auto learner = make_gmm({{"count", std::int64_t(3)}});
    radial::FitContext a(3), b(3);
    const Centres ca = learner->fit(data, nullptr, a);
    const Centres cb = learner->fit(data, nullptr, b);
    CHECK(ca.means == cb.means);
  }
}

TEST_CASE("a component that loses all responsibility is reseeded at the worst-explained row",
          "[gmm][guard]") {
  const Matrix x = iris_standardised();
  Centres c = initial(x, {0, 50, 100}, Shape::Diagonal);
  for (std::size_t k = 0; k < x.shape(1); ++k) c.means(2, k) = 1e3;  // far from every row
  const Vector w = {0.4, 0.4, 0.2};
  // The row with the lowest log-likelihood under the initial mixture, from the definitions.
  std::size_t worst = 0;
  double worst_ll = std::numeric_limits<double>::infinity();
  for (std::size_t n = 0; n < x.shape(0); ++n) {
    double p = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      double r2 = 0;
      for (std::size_t k = 0; k < x.shape(1); ++k) r2 += (x(n, k) - c.means(j, k)) * (x(n, k) - c.means(j, k));
      p += w(j) * std::exp(-0.5 * r2) / std::pow(2 * M_PI, 2.0);
    }
    if (std::log(p) < worst_ll) {
      worst_ll = std::log(p);
      worst = n;
    }
  }
  radial::EmOptions options;
  options.iterations = 1;
  options.tolerance = 0;
  const radial::EmResult fit = radial::em_mixture(x, c, w, options);
  CHECK(fit.empty_repairs == 1);
  REQUIRE(fit.notes.size() == 1);
  CHECK_THAT(fit.notes[0], Catch::Matchers::Contains("reseeded at row " + std::to_string(worst)));
  for (std::size_t k = 0; k < x.shape(1); ++k) CHECK(fit.components.means(2, k) == x(worst, k));
  CHECK(xt::sum(fit.weights)() == Approx(1.0));
  CHECK(std::isfinite(fit.final_log_likelihood));
}

TEST_CASE("a collapsed variance is raised to the floor and counted", "[gmm][guard]") {
  Matrix x = iris_standardised();
  for (std::size_t n = 0; n < x.shape(0); ++n) x(n, 3) = 0.5;  // a constant column
  radial::EmOptions options;
  options.iterations = 3;
  options.tolerance = 0;
  options.covariance_floor = 1e-4;
  const radial::EmResult fit =
      radial::em_mixture(x, initial(x, {0, 50, 100}, Shape::Diagonal), Vector{0.3, 0.3, 0.4}, options);
  CHECK(fit.floored == 9);  // 3 components x 3 M-steps, dimension 3
  for (std::size_t j = 0; j < 3; ++j) CHECK(fit.components.diagonal(j, 3) == 1e-4);
}
