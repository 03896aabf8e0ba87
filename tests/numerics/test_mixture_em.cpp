// The framework's mixture EM (radial/numerics/mixture/mixture_em.hpp) against independent sources:
// scikit-learn's GaussianMixture from the same start (tests/reference/reference_gmm.py
// writes reference_gmm.json), the log-likelihood trace, the K-d tree E-step against brute
// force, the discriminative E-step against log R^d computed from its definition (Klautau,
// paper 002, fig. 2), the centred scatter on data far from the origin (1e6; two clusters at 1e8
// through the plain, class-weighted and discriminative E-steps) against a two-pass sum in long
// double, and class-specific weights (PRBF eq 4) against one E-step per class.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <radial/data/data_reader.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/kdtree.hpp>
#include <radial/numerics/mixture/mixture_em.hpp>
#include <radial/testing/class_mixtures.hpp>
#include <radial/testing/paths.hpp>

namespace {

using radial::testing::Data;
using radial::testing::direct_log_rd;
using radial::testing::em_start;
using radial::testing::load_standardised;
using radial::testing::log_weights;

using radial::Centres;
using radial::Labels;
using radial::Matrix;
using radial::Shape;
using radial::Vector;

// Standardised iris features (population standard deviation, as reference_gmm.py).
Matrix iris_standardised() { return radial::testing::load_standardised("iris.csv", 150).x; }

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
  std::ifstream in(radial::testing::source_dir() / "tests/reference/reference_gmm.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}


double log_prior_sum(const Centres& c, const Data& data) {
  double p = 0;
  for (std::size_t n = 0; n < data.y.size(); ++n) p += std::log(c.class_priors(std::size_t(data.y(n))));
  return p;
}

// `iterations` EM steps (tolerance 0: every one runs) of m components of `shape` from a k-means
// start seeded with `seed`.
radial::EmResult em_from_kmeans(const Matrix& x, std::size_t m, Shape shape, std::size_t iterations,
                                std::uint64_t seed) {
  radial::EmOptions options;
  options.shape = shape;
  options.iterations = iterations;
  options.tolerance = 0;
  std::mt19937_64 rng(seed);
  return radial::em_mixture_kmeans(x, m, options, rng);
}

}  // namespace

TEST_CASE("EM equals scikit-learn's GaussianMixture from the same start", "[mixture-em][sklearn]") {
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

TEST_CASE("EM log-likelihood never decreases", "[mixture-em]") {
  // Data from a known mixture of three 3-D Gaussians; k-means start, every covariance type.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> z(0.0, 1.0);
  const std::size_t n = 600, d = 3;
  Matrix x = Matrix::from_shape({n, d});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) x(i, k) = 2.0 * double(i % 3) * (k == i % 3) + z(rng) * (0.5 + 0.3 * k);
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    const radial::EmResult fit = em_from_kmeans(x, 5, shape, 60, 11);
    REQUIRE(fit.log_likelihood.size() == 61);
    CHECK(fit.floored == 0);
    CHECK(fit.empty_repairs == 0);
    for (std::size_t i = 1; i < fit.log_likelihood.size(); ++i)
      CHECK(fit.log_likelihood[i] >= fit.log_likelihood[i - 1] - 1e-9 * std::fabs(fit.log_likelihood[i - 1]));
    CHECK(fit.log_likelihood.back() > fit.log_likelihood.front());
  }
}

TEST_CASE("K-d tree E-step at the exact threshold equals brute force", "[mixture-em][kdtree]") {
  const Matrix x = iris_standardised();
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    const radial::EmResult fit = em_from_kmeans(x, 6, shape, 5, 3);
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

TEST_CASE("K-d tree with infinite threshold is a single exact leaf", "[mixture-em][kdtree]") {
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

TEST_CASE("discriminative E-step: numerator counts are EM's, log R^d is sum log P(y|x)", "[mixture-em]") {
  const Data data = load_standardised("waveform.csv", 400);
  const Centres c = em_start(data, 3, 1);
  radial::Vector lnum, lden;
  log_weights(c, lnum, lden);
  radial::MixtureCounts num, den, em;
  radial::EStepOptions e;
  const radial::DiscriminativeSummary s =
      radial::e_step_discriminative(data.x, data.y, c, lnum, lden, e, num, den);
  const double rd = log_prior_sum(c, data) + s.log_numerator - s.log_denominator;
  CHECK(rd == Approx(double(direct_log_rd(c, data))).epsilon(1e-9));
  CHECK(rd < 0);
  // "the counts in Lambda^num are exactly the same as the ones that would be obtained with EM"
  radial::e_step(data.x, c, lnum, &data.y, e, em);
  for (std::size_t j = 0; j < c.count(); ++j) {
    CHECK(num.c1(j) == Approx(em.c1(j)).epsilon(1e-12));
    for (std::size_t l = 0; l < c.dim(); ++l) CHECK(num.scatter_diagonal(j, l) == Approx(em.scatter_diagonal(j, l)).epsilon(1e-12));
  }
  // Denominator responsibilities sum to one per row.
  CHECK(xt::sum(den.c1)() == Approx(double(data.x.shape(0))).epsilon(1e-12));
}

TEST_CASE("discriminative E-step with the K-d tree at the exact threshold equals brute force",
          "[mixture-em][kdtree]") {
  const Data data = load_standardised("waveform.csv", 400);
  const Centres c = em_start(data, 4, 2);
  radial::Vector lnum, lden;
  log_weights(c, lnum, lden);
  radial::GaussianBoxTreeOptions o;
  o.threshold = radial::GaussianBoxTree::exact_threshold(c, data.x);
  o.leaf_size = 1;
  const radial::GaussianBoxTree tree(c, data.x, o);
  CHECK(tree.mean_candidates() == Approx(double(c.count())));
  radial::MixtureCounts bn, bd, tn, td;
  radial::EStepOptions e;
  const auto sb = radial::e_step_discriminative(data.x, data.y, c, lnum, lden, e, bn, bd);
  e.tree = &tree;
  const auto st = radial::e_step_discriminative(data.x, data.y, c, lnum, lden, e, tn, td);
  CHECK(st.fallback_rows == 0);
  CHECK(st.log_numerator == Approx(sb.log_numerator).epsilon(1e-10));
  CHECK(st.log_denominator == Approx(sb.log_denominator).epsilon(1e-10));
  for (std::size_t j = 0; j < c.count(); ++j) {
    CHECK(td.c1(j) == Approx(bd.c1(j)).epsilon(1e-9).margin(1e-12));
    CHECK(tn.c1(j) == Approx(bn.c1(j)).epsilon(1e-9).margin(1e-12));
    for (std::size_t l = 0; l < c.dim(); ++l) {
      CHECK(td.cx(j, l) == Approx(bd.cx(j, l)).epsilon(1e-9).margin(1e-10));
      CHECK(td.scatter_diagonal(j, l) == Approx(bd.scatter_diagonal(j, l)).epsilon(1e-9).margin(1e-10));
    }
  }
}

TEST_CASE("a component that loses all responsibility is reseeded at the worst-explained row",
          "[mixture-em][guard]") {
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

TEST_CASE("a collapsed variance is raised to the floor and counted", "[mixture-em][guard]") {
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

TEST_CASE("the M-step variance of data far from the origin equals a two-pass sum",
          "[mixture-em][centred]") {
  // x = 1e6 + 0.01 z: E[x^2] - mean^2 would lose every digit (x^2 ~ 1e12, variance 1e-4).
  const std::size_t n = 1000, d = 2;
  std::mt19937_64 rng(17);
  std::normal_distribution<double> z;
  Matrix x = Matrix::from_shape({n, d});
  for (auto& v : x) v = 1e6 + 0.01 * z(rng);
  for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    INFO("shape " << radial::to_string(shape));
    Centres c;
    c.shape = shape;
    c.means = Matrix::from_shape({1, d});
    c.means.fill(1e6 + 0.003);  // not the data mean: the update must move it
    if (shape == Shape::Spherical) c.variances = Vector{1e-4};
    if (shape == Shape::Diagonal) c.diagonal = xt::ones<double>({std::size_t(1), d}) * 1e-4;
    if (shape == Shape::Full) {
      c.covariances = xt::zeros<double>({std::size_t(1), d, d});
      for (std::size_t a = 0; a < d; ++a) c.covariances(0, a, a) = 1e-4;
    }
    radial::MixtureCounts counts;
    radial::e_step(x, c, Vector{0.0}, nullptr, radial::EStepOptions(), counts);
    Vector w;
    radial::MStepOptions options;
    options.covariance_floor = 1e-12;
    radial::m_step(counts, options, c, w);
    // One component: responsibilities 1, so the M-step is the sample mean and the population
    // (co)variance; two passes in long double.
    std::vector<long double> mean(d, 0.0L);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t a = 0; a < d; ++a) mean[a] += x(i, a);
    for (auto& m : mean) m /= n;
    std::vector<long double> cov(d * d, 0.0L);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) cov[a * d + b] += (x(i, a) - mean[a]) * (x(i, b) - mean[b]) / n;
    for (std::size_t a = 0; a < d; ++a) CHECK(c.means(0, a) == Approx(double(mean[a])).epsilon(1e-14));
    if (shape == Shape::Spherical)
      CHECK(c.variances(0) == Approx(double((cov[0] + cov[3]) / 2)).epsilon(1e-9));
    if (shape == Shape::Diagonal)
      for (std::size_t a = 0; a < d; ++a)
        CHECK(c.diagonal(0, a) == Approx(double(cov[a * d + a])).epsilon(1e-9));
    if (shape == Shape::Full)
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b)
          CHECK(c.covariances(0, a, b) == Approx(double(cov[a * d + b])).epsilon(1e-9).margin(1e-15));
  }
}

namespace {

// Two clusters at 1e8 (and 1e8 + separation in every coordinate) with unit spread, rows
// interleaved so every E-step block holds both: the product form's shift to a component's
// centre then cancels by ~(separation / 2)^2, and at separation 1e5 it falls back to the
// direct sum. Reference: each cluster's mean and population (co)variance in long double.
struct FarClusters {
  Matrix x;
  Labels cluster;
  std::vector<std::vector<long double>> mean, cov;  // per cluster: d, d x d
};

FarClusters far_clusters(std::size_t n, std::size_t d, double separation) {
  FarClusters f;
  std::mt19937_64 rng(23);
  std::normal_distribution<double> z;
  f.x = Matrix::from_shape({n, d});
  f.cluster = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    f.cluster(i) = std::int64_t(i % 2);
    for (std::size_t a = 0; a < d; ++a) f.x(i, a) = 1e8 + separation * double(i % 2) + z(rng);
  }
  f.mean.assign(2, std::vector<long double>(d, 0.0L));
  f.cov.assign(2, std::vector<long double>(d * d, 0.0L));
  std::vector<std::size_t> size(2, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto j = std::size_t(f.cluster(i));
    ++size[j];
    for (std::size_t a = 0; a < d; ++a) f.mean[j][a] += f.x(i, a);
  }
  for (std::size_t j = 0; j < 2; ++j)
    for (auto& m : f.mean[j]) m /= size[j];
  for (std::size_t i = 0; i < n; ++i) {
    const auto j = std::size_t(f.cluster(i));
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b)
        f.cov[j][a * d + b] += (f.x(i, a) - f.mean[j][a]) * (f.x(i, b) - f.mean[j][b]) / size[j];
  }
  return f;
}

// Unit shapes at the cluster centres plus 0.3 (the update must move them).
Centres far_start(std::size_t d, double separation, Shape shape) {
  Centres c;
  c.shape = shape;
  c.means = Matrix::from_shape({2, d});
  for (std::size_t j = 0; j < 2; ++j)
    for (std::size_t a = 0; a < d; ++a) c.means(j, a) = 1e8 + separation * double(j) + 0.3;
  if (shape == Shape::Spherical) c.variances = xt::ones<double>({std::size_t(2)});
  if (shape == Shape::Diagonal) c.diagonal = xt::ones<double>({std::size_t(2), d});
  if (shape == Shape::Full) {
    c.covariances = xt::zeros<double>({std::size_t(2), d, d});
    for (std::size_t j = 0; j < 2; ++j)
      for (std::size_t a = 0; a < d; ++a) c.covariances(j, a, a) = 1.0;
  }
  return c;
}

// The M-step's (co)variances of component j against cluster j's two-pass values, relative.
void check_far_shape(const Centres& c, const FarClusters& f, std::size_t j, double tolerance) {
  const std::size_t d = c.dim();
  for (std::size_t a = 0; a < d; ++a)
    CHECK(c.means(j, a) == Approx(double(f.mean[j][a])).epsilon(1e-15));
  if (c.shape == Shape::Spherical) {
    long double v = 0;
    for (std::size_t a = 0; a < d; ++a) v += f.cov[j][a * d + a] / d;
    CHECK(c.variances(j) == Approx(double(v)).epsilon(tolerance));
  }
  if (c.shape == Shape::Diagonal)
    for (std::size_t a = 0; a < d; ++a)
      CHECK(c.diagonal(j, a) == Approx(double(f.cov[j][a * d + a])).epsilon(tolerance));
  if (c.shape == Shape::Full)
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b)
        // off-diagonal sample covariances are ~0.03: measured against the unit variances
        CHECK(c.covariances(j, a, b) ==
              Approx(double(f.cov[j][a * d + b])).epsilon(0).margin(tolerance));
}

}  // namespace

TEST_CASE("the M-step variance of unit-spread clusters at 1e8 equals a two-pass sum",
          "[mixture-em][centred]") {
  // d = 3 (Full by quadratic features) and d = 65 (Full summed in accumulate_block); a variance
  // of 1 at 1e8 is 1e-16 of x^2, so any uncentred sum keeps no digit of it.
  for (const std::size_t d : {std::size_t(3), std::size_t(65)})
    for (const double separation : {40.0, 1e5})
      for (const Shape shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
        if (d > 3 && shape != Shape::Full) continue;
        INFO("d " << d << ", separation " << separation << ", shape " << radial::to_string(shape));
        const FarClusters f = far_clusters(2000, d, separation);
        Centres c = far_start(d, separation, shape);
        radial::MixtureCounts counts;
        radial::e_step(f.x, c, Vector{std::log(0.5), std::log(0.5)}, nullptr,
                       radial::EStepOptions(), counts);
        Vector w;
        radial::MStepOptions options;
        options.covariance_floor = 1e-12;
        radial::m_step(counts, options, c, w);
        for (std::size_t j = 0; j < 2; ++j) check_far_shape(c, f, j, 1e-9);
      }
}

TEST_CASE("class-weighted and discriminative E-step counts of clusters at 1e8 are exact",
          "[mixture-em][centred]") {
  const std::size_t d = 3;
  for (const double separation : {40.0, 1e5}) {
    INFO("separation " << separation);
    const FarClusters f = far_clusters(2000, d, separation);
    for (const Shape shape : {Shape::Diagonal, Shape::Full}) {
      INFO("shape " << radial::to_string(shape));
      // PRBF's E-step (eq 4), pi_jk = 1/2: class sums and covariance_about (eq 7).
      const Centres c = far_start(d, separation, shape);
      radial::MixtureCounts counts;
      const Matrix log_pi = xt::ones<double>({std::size_t(2), std::size_t(2)}) * std::log(0.5);
      radial::e_step(f.x, c, log_pi, f.cluster, radial::EStepOptions(), counts);
      for (std::size_t j = 0; j < 2; ++j) {
        REQUIRE(counts.class_c1(j, j) == 1000.0);
        CHECK(counts.class_c1(j, 1 - j) == 0.0);
        std::vector<double> mean(d), cov(shape == Shape::Full ? d * d : d);
        for (std::size_t a = 0; a < d; ++a) {
          mean[a] = counts.class_cx(j, j, a) / counts.class_c1(j, j);
          CHECK(mean[a] == Approx(double(f.mean[j][a])).epsilon(1e-15));
        }
        radial::covariance_about(counts, j, mean.data(), cov.data());
        for (std::size_t a = 0; a < d; ++a) {
          const double got = shape == Shape::Full ? cov[a * d + a] : cov[a];
          CHECK(got == Approx(double(f.cov[j][a * d + a])).epsilon(1e-9));
        }
      }
    }
    // DEM's E-step (paper 002, fig. 2): both counts centred on the old means m_j.
    Centres c = far_start(d, separation, Shape::Diagonal);
    c.owner = Labels{0, 1};
    radial::MixtureCounts num, den;
    radial::e_step_discriminative(f.x, f.cluster, c, Vector{0.0, 0.0},
                                  Vector{std::log(0.5), std::log(0.5)}, radial::EStepOptions(),
                                  num, den);
    for (const radial::MixtureCounts* counts : {&num, &den})
      for (std::size_t j = 0; j < 2; ++j)
        for (std::size_t a = 0; a < d; ++a) {
          // sum (x - m)^2 = n (var + (mean - m)^2) over the cluster's 1000 rows
          const long double e = f.mean[j][a] - c.means(j, a);
          const long double want = 1000.0L * (f.cov[j][a * d + a] + e * e);
          CHECK(counts->scatter_diagonal(j, a) == Approx(double(want)).epsilon(1e-9));
          CHECK(counts->cy(j, a) == Approx(double(1000.0L * e)).epsilon(1e-9));
        }
  }
}

TEST_CASE("class-specific weights: each row uses its class's log pi_jk (PRBF eq 4)",
          "[mixture-em][classes]") {
  // Three diagonal kernels shared by two classes; responsibilities written out row by row.
  const std::size_t n = 300, d = 2, m = 3, k = 2;
  std::mt19937_64 rng(23);
  std::normal_distribution<double> z;
  Matrix x = Matrix::from_shape({n, d});
  Labels y = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    y(i) = std::int64_t(i % k);
    for (std::size_t a = 0; a < d; ++a) x(i, a) = z(rng) + (y(i) == 1 ? 1.0 : -0.5) * double(a + 1);
  }
  Centres c;
  c.shape = Shape::Diagonal;
  c.means = Matrix{{-1.0, -1.0}, {0.0, 0.5}, {1.0, 2.0}};
  c.diagonal = Matrix{{1.0, 0.5}, {2.0, 1.0}, {0.7, 1.5}};
  const Matrix pi = {{0.6, 0.1}, {0.3, 0.3}, {0.1, 0.6}};
  Matrix log_pi = pi;
  for (auto& v : log_pi) v = std::log(v);
  for (const bool tree : {false, true}) {
    INFO("tree " << tree);
    radial::EStepOptions options;
    options.block_rows = 64;
    radial::GaussianBoxTreeOptions o;
    o.threshold = std::numeric_limits<double>::infinity();
    const radial::GaussianBoxTree box_tree(c, x, o);
    if (tree) options.tree = &box_tree;
    radial::MixtureCounts counts;
    const radial::EStepSummary s = radial::e_step(x, c, log_pi, y, options, counts);
    long double ll = 0;
    std::vector<long double> c1(m * k, 0.0L), cx(m * k * d, 0.0L), q(m * d, 0.0L);
    for (std::size_t i = 0; i < n; ++i) {
      const auto cls = std::size_t(y(i));
      std::vector<long double> p(m);
      long double total = 0;
      for (std::size_t j = 0; j < m; ++j) {
        long double log_n = -0.5L * d * std::log(2.0L * M_PI);
        for (std::size_t a = 0; a < d; ++a) {
          const long double e = x(i, a) - c.means(j, a);
          log_n -= 0.5L * (e * e / c.diagonal(j, a) + std::log((long double)c.diagonal(j, a)));
        }
        p[j] = pi(j, cls) * std::exp(log_n);
        total += p[j];
      }
      ll += std::log(total);
      for (std::size_t j = 0; j < m; ++j) {
        const long double r = p[j] / total;
        c1[j * k + cls] += r;
        for (std::size_t a = 0; a < d; ++a) {
          cx[(j * k + cls) * d + a] += r * x(i, a);
          const long double e = x(i, a) - c.means(j, a);
          q[j * d + a] += r * e * e;
        }
      }
    }
    CHECK(s.log_likelihood == Approx(double(ll)).epsilon(1e-12));
    for (std::size_t j = 0; j < m; ++j) {
      CHECK(counts.c1(j) == Approx(double(c1[j * k] + c1[j * k + 1])).epsilon(1e-12));
      for (std::size_t cls = 0; cls < k; ++cls) {
        CHECK(counts.class_c1(j, cls) == Approx(double(c1[j * k + cls])).epsilon(1e-12));
        for (std::size_t a = 0; a < d; ++a)
          CHECK(counts.class_cx(j, cls, a) ==
                Approx(double(cx[(j * k + cls) * d + a])).epsilon(1e-11).margin(1e-12));
      }
      for (std::size_t a = 0; a < d; ++a)
        CHECK(counts.scatter_diagonal(j, a) == Approx(double(q[j * d + a])).epsilon(1e-12));
    }
  }
  // A class index outside the weight columns is a shape error.
  Labels bad = y;
  bad(5) = 2;
  radial::MixtureCounts counts;
  CHECK_THROWS_AS(radial::e_step(x, c, log_pi, bad, radial::EStepOptions(), counts),
                  radial::ShapeError);
}
