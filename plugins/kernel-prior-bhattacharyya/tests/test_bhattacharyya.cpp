// Tests of the Bhattacharyya kernel prior. Reference values come from closed forms, numerical
// quadrature of -ln int sqrt(p q) dx, and central finite differences of the prior itself.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>

#include "bhattacharyya.hpp"
#include "radial/core/errors.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"

#include <xtensor/xview.hpp>

using namespace radial;
using radial::plugins::bhattacharyya_distance;
using radial::plugins::BhattacharyyaPrior;

namespace {

double gaussian_1d(double x, double mean, double var) {
  return std::exp(-0.5 * (x - mean) * (x - mean) / var) / std::sqrt(2 * M_PI * var);
}

double gaussian_2d(double x, double y, const Vector& m, const Matrix& s) {
  const double det = s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0);
  const double dx = x - m(0), dy = y - m(1);
  const double q = (s(1, 1) * dx * dx - 2 * s(0, 1) * dx * dy + s(0, 0) * dy * dy) / det;
  return std::exp(-0.5 * q) / (2 * M_PI * std::sqrt(det));
}

// Composite Simpson weights on n+1 points (n even).
double simpson_weight(int i, int n) { return (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0); }

// A random input: M kernels, K classes, d dimensions, full or diagonal covariances.
KernelPriorInput random_input(std::size_t m, std::size_t k, std::size_t d, bool full,
                              std::uint64_t seed, std::size_t rows = 200) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0.2, 1.0);
  KernelPriorInput in;
  in.rows = rows;
  in.kernels.means = Matrix::from_shape({m, d});
  for (double& v : in.kernels.means) v = normal(rng);
  if (full) {
    in.kernels.shape = radial::Shape::Full;
    in.kernels.covariances = Tensor3::from_shape({m, d, d});
    for (std::size_t j = 0; j < m; ++j) {
      Matrix a = Matrix::from_shape({d, d});
      for (double& v : a) v = normal(rng);
      for (std::size_t r = 0; r < d; ++r)
        for (std::size_t c = 0; c < d; ++c) {
          double s = r == c ? 0.5 : 0.0;
          for (std::size_t t = 0; t < d; ++t) s += a(r, t) * a(c, t) / double(d);
          in.kernels.covariances(j, r, c) = s;
        }
    }
  } else {
    in.kernels.shape = radial::Shape::Diagonal;
    in.kernels.diagonal = Matrix::from_shape({m, d});
    for (double& v : in.kernels.diagonal) v = uniform(rng);
  }
  in.subkernel_means = Tensor3::from_shape({m, k, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < k; ++c)
      for (std::size_t a = 0; a < d; ++a)
        in.subkernel_means(j, c, a) = in.kernels.means(j, a) + 0.7 * normal(rng);
  // P(C_k|j) from random mixing weights and priors (eq 15).
  Matrix mixing = Matrix::from_shape({m, k});
  for (double& v : mixing) v = uniform(rng);
  Vector priors = Vector::from_shape({k});
  for (double& v : priors) v = uniform(rng);
  in.class_given_kernel = radial::class_given_kernel(mixing, priors);
  in.check();
  return in;
}

Matrix kernel_covariance(const KernelPriorInput& in, std::size_t j) {
  const std::size_t d = in.dim();
  Matrix s = Matrix::from_shape({d, d});
  s.fill(0.0);
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b)
      s(a, b) = in.kernels.shape == radial::Shape::Full ? in.kernels.covariances(j, a, b)
                                                         : (a == b ? in.kernels.diagonal(j, a) : 0);
  return s;
}

}  // namespace

TEST_CASE("Bhattacharyya distance of 1-D Gaussians: closed form and quadrature", "[bhattacharyya]") {
  const double m1 = 0.3, v1 = 0.5, m2 = -1.1, v2 = 2.0;
  // Closed form for two univariate normals.
  const double closed = (m1 - m2) * (m1 - m2) / (4 * (v1 + v2)) +
                        0.5 * std::log((v1 + v2) / (2 * std::sqrt(v1 * v2)));
  // -ln int sqrt(p q) dx by Simpson on [-15, 15].
  const int n = 20000;
  const double lo = -15, hi = 15, h = (hi - lo) / n;
  double integral = 0;
  for (int i = 0; i <= n; ++i) {
    const double x = lo + i * h;
    integral += simpson_weight(i, n) * std::sqrt(gaussian_1d(x, m1, v1) * gaussian_1d(x, m2, v2));
  }
  const double quadrature = -std::log(integral * h / 3);

  const double got = bhattacharyya_distance(Vector{m1}, Matrix{{v1}}, Vector{m2}, Matrix{{v2}});
  CHECK(got == Approx(closed).epsilon(1e-13));
  CHECK(got == Approx(quadrature).epsilon(1e-9));
}

TEST_CASE("Bhattacharyya distance of 2-D Gaussians with full covariances matches quadrature",
          "[bhattacharyya]") {
  const Vector m1{0.5, -0.2}, m2{-0.4, 0.6};
  const Matrix s1{{1.0, 0.6}, {0.6, 0.8}}, s2{{0.5, -0.2}, {-0.2, 1.5}};
  const int n = 1200;
  const double lo = -9, hi = 9, h = (hi - lo) / n;
  double integral = 0;
  for (int i = 0; i <= n; ++i)
    for (int k = 0; k <= n; ++k) {
      const double x = lo + i * h, y = lo + k * h;
      integral += simpson_weight(i, n) * simpson_weight(k, n) *
                  std::sqrt(gaussian_2d(x, y, m1, s1) * gaussian_2d(x, y, m2, s2));
    }
  const double quadrature = -std::log(integral * h * h / 9);
  CHECK(bhattacharyya_distance(m1, s1, m2, s2) == Approx(quadrature).epsilon(1e-8));
  // Symmetric in its arguments.
  CHECK(bhattacharyya_distance(m2, s2, m1, s1) ==
        Approx(bhattacharyya_distance(m1, s1, m2, s2)).epsilon(1e-14));
}

TEST_CASE("Bhattacharyya distance of diagonal Gaussians is the sum of 1-D distances",
          "[bhattacharyya]") {
  const Vector m1{1.0, 0.0, -2.0}, m2{0.0, 0.5, -1.0};
  const Vector v1{0.3, 1.2, 2.0}, v2{0.9, 0.4, 2.0};
  Matrix s1 = Matrix::from_shape({3, 3}), s2 = Matrix::from_shape({3, 3});
  s1.fill(0.0);
  s2.fill(0.0);
  double expected = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    s1(a, a) = v1(a);
    s2(a, a) = v2(a);
    expected += (m1(a) - m2(a)) * (m1(a) - m2(a)) / (4 * (v1(a) + v2(a))) +
                0.5 * std::log((v1(a) + v2(a)) / (2 * std::sqrt(v1(a) * v2(a))));
  }
  CHECK(bhattacharyya_distance(m1, s1, m2, s2) == Approx(expected).epsilon(1e-13));
  CHECK(bhattacharyya_distance(m1, s1, m1, s1) == Approx(0.0).margin(1e-15));
}

TEST_CASE("Bhattacharyya distance rejects a covariance that is not positive definite",
          "[bhattacharyya]") {
  const Matrix bad{{1.0, 2.0}, {2.0, 1.0}};
  const Matrix good{{1.0, 0.0}, {0.0, 1.0}};
  CHECK_THROWS_AS(bhattacharyya_distance(Vector{0, 0}, bad, Vector{1, 1}, good),
                  radial::NumericalError);
}

TEST_CASE("kernel distances are eq 23 with the subkernel sharing the kernel covariance",
          "[bhattacharyya]") {
  for (bool full : {false, true}) {
    const KernelPriorInput in = random_input(4, 3, 5, full, full ? 11 : 12);
    const BhattacharyyaPrior prior({1.0, BhattacharyyaPrior::Units::Absolute});
    const Matrix beta = prior.kernel_distances(in);
    for (std::size_t j = 0; j < in.count(); ++j) {
      const Matrix s = kernel_covariance(in, j);
      const Vector mj = xt::row(in.kernels.means, j);
      for (std::size_t k = 0; k < in.classes(); ++k) {
        const Vector mjk = xt::view(in.subkernel_means, j, k, xt::all());
        CHECK(beta(j, k) == Approx(bhattacharyya_distance(mj, s, mjk, s)).epsilon(1e-11));
      }
    }
  }
}

TEST_CASE("eq 31: the mixing regularisation terms of each kernel sum to zero",
          "[bhattacharyya]") {
  for (bool full : {false, true}) {
    const KernelPriorInput in = random_input(6, 4, 3, full, 21);
    const BhattacharyyaPrior prior({7.5, BhattacharyyaPrior::Units::Absolute});
    Matrix terms = Matrix::from_shape({6, 4});
    terms.fill(0.0);
    prior.add_mixing_terms(in, terms);
    for (std::size_t j = 0; j < 6; ++j) {
      double sum = 0, size = 0;
      for (std::size_t k = 0; k < 4; ++k) {
        sum += terms(j, k);
        size += std::fabs(terms(j, k));
      }
      CHECK(size > 1e-3);  // the terms are not trivially zero
      CHECK(sum == Approx(0.0).margin(1e-12 * size));
    }
  }
}

TEST_CASE("mixing terms are pi_jk d log p / d pi_jk (central differences)", "[bhattacharyya]") {
  const std::size_t m = 3, k = 3;
  KernelPriorInput in = random_input(m, k, 2, true, 31);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> uniform(0.1, 1.0);
  Matrix mixing = Matrix::from_shape({m, k});
  for (double& v : mixing) v = uniform(rng);
  const Vector priors{0.2, 0.5, 0.3};
  in.class_given_kernel = radial::class_given_kernel(mixing, priors);
  const BhattacharyyaPrior prior({3.0, BhattacharyyaPrior::Units::Absolute});
  Matrix terms = Matrix::from_shape({m, k});
  terms.fill(0.0);
  prior.add_mixing_terms(in, terms);

  const double h = 1e-6;
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t c = 0; c < k; ++c) {
      Matrix up = mixing, down = mixing;
      up(j, c) += h;
      down(j, c) -= h;
      KernelPriorInput a = in, b = in;
      a.class_given_kernel = radial::class_given_kernel(up, priors);
      b.class_given_kernel = radial::class_given_kernel(down, priors);
      // log p = -kernel_penalty
      const double derivative = -(prior.kernel_penalty(a) - prior.kernel_penalty(b)) / (2 * h);
      CHECK(terms(j, c) == Approx(mixing(j, c) * derivative).epsilon(1e-6).margin(1e-9));
    }
}

TEST_CASE("mean terms are the gradient of log p in mu_j (central differences)",
          "[bhattacharyya]") {
  // d log p / d mu_j = -Sigma_j^{-1} (weight_j mu_j - target_j) for the quadratic prior of eq 26.
  for (bool full : {false, true}) {
    const KernelPriorInput in = random_input(3, 2, 2, full, 41);
    const BhattacharyyaPrior prior({2.0, BhattacharyyaPrior::Units::Absolute});
    KernelMeanTerms terms = KernelMeanTerms::zeros(3, 2);
    prior.add_mean_terms(in, terms);
    const double h = 1e-6;
    for (std::size_t j = 0; j < 3; ++j) {
      CHECK(terms.weight(j) == Approx(2.0 / 4.0));  // eq 27: alpha / 4
      const Matrix s = kernel_covariance(in, j);
      const double det = s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0);
      const Matrix inverse{{s(1, 1) / det, -s(0, 1) / det}, {-s(1, 0) / det, s(0, 0) / det}};
      double r[2];
      for (std::size_t a = 0; a < 2; ++a)
        r[a] = terms.weight(j) * in.kernels.means(j, a) - terms.target(j, a);
      for (std::size_t a = 0; a < 2; ++a) {
        KernelPriorInput up = in, down = in;
        up.kernels.means(j, a) += h;
        down.kernels.means(j, a) -= h;
        const double derivative =
            -(prior.kernel_penalty(up) - prior.kernel_penalty(down)) / (2 * h);
        const double expected = -(inverse(a, 0) * r[0] + inverse(a, 1) * r[1]);
        CHECK(derivative == Approx(expected).epsilon(1e-6).margin(1e-9));
      }
    }
  }
}

TEST_CASE("alpha in units of N/(KM) scales the absolute alpha", "[bhattacharyya]") {
  const KernelPriorInput in = random_input(5, 2, 3, false, 51, 300);  // N/(KM) = 30
  const BhattacharyyaPrior relative({2.0, BhattacharyyaPrior::Units::NOverKM});
  const BhattacharyyaPrior absolute({60.0, BhattacharyyaPrior::Units::Absolute});
  CHECK(relative.effective_alpha(in) == Approx(60.0));
  CHECK(relative.kernel_penalty(in) == Approx(absolute.kernel_penalty(in)).epsilon(1e-14));
  Matrix t1 = Matrix::from_shape({5, 2}), t2 = Matrix::from_shape({5, 2});
  t1.fill(0.0);
  t2.fill(0.0);
  relative.add_mixing_terms(in, t1);
  absolute.add_mixing_terms(in, t2);
  for (std::size_t i = 0; i < t1.size(); ++i) CHECK(t1.data()[i] == Approx(t2.data()[i]));
}

TEST_CASE("alpha = 0 adds nothing, and a dead kernel contributes nothing", "[bhattacharyya]") {
  KernelPriorInput in = random_input(3, 2, 2, false, 61);
  const BhattacharyyaPrior zero({0.0, BhattacharyyaPrior::Units::Absolute});
  CHECK(zero.kernel_penalty(in) == 0.0);
  KernelMeanTerms terms = KernelMeanTerms::zeros(3, 2);
  zero.add_mean_terms(in, terms);
  for (double v : terms.weight) CHECK(v == 0.0);
  for (double v : terms.target) CHECK(v == 0.0);

  in.class_given_kernel(1, 0) = 0;  // kernel 1 has no weight in any class
  in.class_given_kernel(1, 1) = 0;
  const BhattacharyyaPrior prior({4.0, BhattacharyyaPrior::Units::Absolute});
  KernelMeanTerms mean_terms = KernelMeanTerms::zeros(3, 2);
  prior.add_mean_terms(in, mean_terms);
  CHECK(mean_terms.weight(1) == 0.0);
  CHECK(mean_terms.weight(0) == Approx(1.0));
}

TEST_CASE("the bhattacharyya plugin loads, declares its parameters and is a kernel prior only",
          "[bhattacharyya][plugin]") {
  radial::Registry registry;
  registry.load_file(radial::testing::plugin_dir() / "libradial-kernel-prior-bhattacharyya.so");
  const radial::ComponentInfo& info =
      registry.require(radial::Slot::KernelPrior, "bhattacharyya");
  REQUIRE(radial::find_param(info.params, "alpha") != nullptr);
  REQUIRE(radial::find_param(info.params, "alpha_units") != nullptr);
  CHECK_THROWS_AS(radial::validate_params(info.params, {{"alpha", -1.0}}, "plugin bhattacharyya"),
                  radial::ParameterError);
  CHECK_THROWS_AS(
      radial::validate_params(info.params, {{"alpha_units", std::string("N/K")}},
                              "plugin bhattacharyya"),
      radial::ParameterError);

  const radial::Params params = radial::validate_params(
      info.params, {{"alpha", 2.0}, {"alpha_units", std::string("N/KM")}}, "plugin bhattacharyya");
  auto prior = registry.make_kernel_prior("bhattacharyya", params);
  // Only a kernel prior: the registry has it in that slot and not as a weight penalty.
  CHECK(registry.find(radial::Slot::WeightPenalty, "bhattacharyya") == nullptr);
  const KernelPriorInput in = random_input(5, 2, 3, true, 71, 300);
  const BhattacharyyaPrior direct({60.0, BhattacharyyaPrior::Units::Absolute});
  CHECK(prior->kernel_penalty(in) == Approx(direct.kernel_penalty(in)).epsilon(1e-14));
}

TEST_CASE("framework kernel-prior helpers: eq 15 and input checks", "[bhattacharyya][kernel_prior]") {
  // P(C_k|j) = pi_jk P(C_k) / sum_l pi_jl P(C_l), worked by hand.
  const Matrix mixing{{0.2, 0.6}, {0.8, 0.4}, {0.0, 0.0}};
  const Vector priors{0.25, 0.75};
  const Matrix p = radial::class_given_kernel(mixing, priors);
  CHECK(p(0, 0) == Approx(0.05 / 0.5));
  CHECK(p(0, 1) == Approx(0.45 / 0.5));
  CHECK(p(1, 0) == Approx(0.2 / 0.5));
  CHECK(p(1, 1) == Approx(0.3 / 0.5));
  CHECK(p(2, 0) == 0.0);  // a kernel with no weight anywhere
  CHECK(p(2, 1) == 0.0);
  CHECK_THROWS_AS(radial::class_given_kernel(mixing, Vector{1.0}), radial::ShapeError);

  KernelPriorInput in = random_input(3, 2, 2, false, 81);
  CHECK_NOTHROW(in.check());
  KernelPriorInput wrong = in;
  wrong.subkernel_means = Tensor3::from_shape({3, 3, 2});
  CHECK_THROWS_AS(wrong.check(), radial::ShapeError);
  wrong = in;
  wrong.class_given_kernel(0, 0) += 0.1;  // row no longer sums to 1
  CHECK_THROWS_AS(wrong.check(), radial::ShapeError);
  wrong = in;
  wrong.kernels.shape = radial::Shape::Spherical;
  wrong.kernels.variances = Vector{1.0, 1.0, 1.0};
  CHECK_THROWS_AS(wrong.check(), radial::ShapeError);
}
