// The expected Gaussian activation over a row's missing inputs (SquaredDistances::
// compute_expected, DesignMatrix::set_input_model) against Gauss-Hermite quadrature over the
// missing coordinates: E[exp(-q(x)/2)] for x_m ~ N(mu, C), the conditional of x_m given x_o
// under the input model computed here by the textbook formula with Gauss-Jordan inverses
// (brute_force.hpp), q(x) with the inverse of the whole shape: nothing shared with the closed
// form. Rows without a missing cell keep their bits.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <radial/network/design_matrix.hpp>
#include <radial/core/errors.hpp>
#include <radial/numerics/distances.hpp>

#include "brute_force.hpp"

using namespace radial;

namespace {

using Dense = std::vector<std::vector<double>>;
const double missing_cell = std::numeric_limits<double>::quiet_NaN();

// phi = exp(-r2 / 2), a Gaussian activation (or, with gaussian = false, a basis that only says
// it is not one, so it keeps the observed-coordinate distance).
class ActivationBasis : public Basis {
 public:
  explicit ActivationBasis(bool gaussian) : gaussian_(gaussian) {}
  Metric metric() const override { return Metric::Shape; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (auto& v : r2) v = std::exp(-0.5 * v);
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override {
    for (auto& v : r2) v = -0.5 * v;
  }
  bool gaussian_activation() const override { return gaussian_; }
  State state() const override { return {}; }
  void load_state(const State&) override {}

 private:
  bool gaussian_;
};

// Gauss-Hermite nodes and weights for the integral of exp(-t^2) f(t) (Numerical Recipes,
// gauher: Newton on the orthonormal Hermite recurrence).
void gauss_hermite(int n, std::vector<double>& t, std::vector<double>& w) {
  const double pim4 = 0.7511255444649425;  // pi^(-1/4)
  t.assign(std::size_t(n), 0.0);
  w.assign(std::size_t(n), 0.0);
  double z = 0;
  for (int i = 0; i < (n + 1) / 2; ++i) {
    if (i == 0) z = std::sqrt(double(2 * n + 1)) - 1.85575 * std::pow(double(2 * n + 1), -0.16667);
    else if (i == 1) z -= 1.14 * std::pow(double(n), 0.426) / z;
    else if (i == 2) z = 1.86 * z - 0.86 * t[0];
    else if (i == 3) z = 1.91 * z - 0.91 * t[1];
    else z = 2.0 * z - t[std::size_t(i - 2)];
    double pp = 0;
    for (int it = 0; it < 200; ++it) {
      double p1 = pim4, p2 = 0;
      for (int j = 0; j < n; ++j) {
        const double p3 = p2;
        p2 = p1;
        p1 = z * std::sqrt(2.0 / (j + 1)) * p2 - std::sqrt(double(j) / (j + 1)) * p3;
      }
      pp = std::sqrt(2.0 * n) * p2;
      const double z1 = z;
      z = z1 - p1 / pp;
      if (std::fabs(z - z1) <= 1e-15) break;
    }
    t[std::size_t(i)] = z;
    t[std::size_t(n - 1 - i)] = -z;
    w[std::size_t(i)] = w[std::size_t(n - 1 - i)] = 2.0 / (pp * pp);
  }
}

Dense shape_of(const Centres& c, std::size_t j) {
  const std::size_t d = c.dim();
  Dense s(d, std::vector<double>(d, 0.0));
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b < d; ++b) {
      if (c.shape == Shape::Spherical) s[a][b] = a == b ? c.variances(j) : 0.0;
      if (c.shape == Shape::Diagonal) s[a][b] = a == b ? c.diagonal(j, a) : 0.0;
      if (c.shape == Shape::Full) s[a][b] = c.covariances(j, a, b);
    }
  return s;
}

// The conditional N(mu, C) of the missing coordinates of x given the observed ones under the
// one Gaussian `model`: mu = m_m + S_mo S_oo^-1 (x_o - m_o), C = S_mm - S_mo S_oo^-1 S_om.
void conditional(const Centres& model, const double* x, const std::vector<std::size_t>& obs,
                 const std::vector<std::size_t>& mis, std::vector<double>& mu, Dense& cov) {
  const Dense s = shape_of(model, 0);
  const std::size_t no = obs.size(), nm = mis.size();
  Dense soo(no, std::vector<double>(no));
  for (std::size_t a = 0; a < no; ++a)
    for (std::size_t b = 0; b < no; ++b) soo[a][b] = s[obs[a]][obs[b]];
  const Dense inv = no ? test::inverse(soo) : Dense();
  mu.assign(nm, 0.0);
  cov.assign(nm, std::vector<double>(nm, 0.0));
  for (std::size_t i = 0; i < nm; ++i) {
    mu[i] = model.means(0, mis[i]);
    for (std::size_t a = 0; a < no; ++a)
      for (std::size_t b = 0; b < no; ++b)
        mu[i] += s[mis[i]][obs[a]] * inv[a][b] * (x[obs[b]] - model.means(0, obs[b]));
    for (std::size_t k = 0; k < nm; ++k) {
      cov[i][k] = s[mis[i]][mis[k]];
      for (std::size_t a = 0; a < no; ++a)
        for (std::size_t b = 0; b < no; ++b)
          cov[i][k] -= s[mis[i]][obs[a]] * inv[a][b] * s[obs[b]][mis[k]];
    }
  }
}

// E[exp(-q_j(x)/2)] over the (1 or 2) missing coordinates of row x by tensor Gauss-Hermite:
// x_m = mu + L sqrt(2) t with C = L L^T.
double quadrature(const Centres& centres, std::size_t j, const Centres& model, const double* x) {
  const std::size_t d = centres.dim();
  std::vector<std::size_t> obs, mis;
  for (std::size_t k = 0; k < d; ++k) (std::isnan(x[k]) ? mis : obs).push_back(k);
  std::vector<double> mu;
  Dense cov;
  conditional(model, x, obs, mis, mu, cov);
  REQUIRE((mis.size() == 1 || mis.size() == 2));
  // Cholesky of the 1 x 1 or 2 x 2 conditional covariance.
  const double l00 = std::sqrt(cov[0][0]);
  const double l10 = mis.size() == 2 ? cov[1][0] / l00 : 0.0;
  const double l11 = mis.size() == 2 ? std::sqrt(cov[1][1] - l10 * l10) : 0.0;
  const Dense s_inv = test::inverse(shape_of(centres, j));
  std::vector<double> t, w;
  gauss_hermite(120, t, w);
  std::vector<double> point(x, x + d);
  double sum = 0;
  const std::size_t n2 = mis.size() == 2 ? t.size() : 1;
  for (std::size_t a = 0; a < t.size(); ++a)
    for (std::size_t b = 0; b < n2; ++b) {
      const double u0 = std::sqrt(2.0) * t[a], u1 = mis.size() == 2 ? std::sqrt(2.0) * t[b] : 0;
      point[mis[0]] = mu[0] + l00 * u0;
      if (mis.size() == 2) point[mis[1]] = mu[1] + l10 * u0 + l11 * u1;
      const double weight = w[a] * (mis.size() == 2 ? w[b] : 1.0);
      sum += weight * std::exp(-0.5 * test::quadratic_form(point.data(), &centres.means(j, 0),
                                                           s_inv));
    }
  return sum / std::pow(M_PI, 0.5 * double(mis.size()));
}

// Centres whose shapes are no narrower than 0.4 in any direction, so that 120 Gauss-Hermite
// nodes resolve the integrand against input-model variances up to ~1.5 to ~1e-13.
Centres centres_of(Shape shape, std::mt19937_64& rng) {
  Centres c = test::random_centres(3, 4, shape, rng);
  if (shape == Shape::Full)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t a = 0; a < 4; ++a) c.covariances(j, a, a) += 0.3;
  if (shape == Shape::Spherical)
    for (auto& v : c.variances) v = std::max(v, 0.4);
  if (shape == Shape::Diagonal)
    for (auto& v : c.diagonal) v = std::max(v, 0.4);
  return c;
}

Centres input_model(Shape shape, std::mt19937_64& rng) {
  Centres m;
  m.means = test::random_matrix(1, 4, rng, 0.5);
  m.shape = shape;
  if (shape == Shape::Diagonal) {
    m.diagonal = Matrix{{0.6, 1.0, 1.5, 0.8}};
  } else {
    m.covariances = Tensor3::from_shape({1, 4, 4});
    const Dense s = test::random_spd(4, rng);
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = 0; b < 4; ++b) m.covariances(0, a, b) = 0.3 * s[a][b];
  }
  return m;
}

}  // namespace

TEST_CASE("Gauss-Hermite nodes integrate exp(-t^2) t^2k and a Gaussian", "[expected]") {
  std::vector<double> t, w;
  gauss_hermite(120, t, w);
  double s0 = 0, s2 = 0, g = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    s0 += w[i];
    s2 += w[i] * t[i] * t[i];
    g += w[i] * std::exp(-2.0 * t[i] * t[i]);
  }
  CHECK(s0 == Approx(std::sqrt(M_PI)).epsilon(1e-14));
  CHECK(s2 == Approx(std::sqrt(M_PI) / 2).epsilon(1e-14));
  CHECK(g == Approx(std::sqrt(M_PI / 3)).epsilon(1e-13));
}

TEST_CASE("the expected activation over missing inputs equals Gauss-Hermite quadrature",
          "[expected][distances]") {
  std::mt19937_64 rng(28);
  const Matrix x = {{0.3, missing_cell, -0.7, 1.1},  // one missing
                    {missing_cell, 0.4, missing_cell, -0.2},  // two missing
                    {missing_cell, missing_cell, 0.9, 0.5},
                    {-1.2, 0.8, 0.1, missing_cell}};
  for (const Shape basis_shape : {Shape::Spherical, Shape::Diagonal, Shape::Full})
    for (const Shape model_shape : {Shape::Diagonal, Shape::Full}) {
      const Centres c = centres_of(basis_shape, rng);
      const Centres model = input_model(model_shape, rng);
      const SquaredDistances distances(c, Metric::Shape);
      std::vector<double> r2(c.count());
      for (std::size_t i = 0; i < x.shape(0); ++i) {
        distances.compute_expected(&x(i, 0), model, r2.data());
        for (std::size_t j = 0; j < c.count(); ++j) {
          INFO("basis " << to_string(basis_shape) << ", input model " << to_string(model_shape)
                        << ", row " << i << ", centre " << j);
          const double want = quadrature(c, j, model, &x(i, 0));
          CHECK(std::exp(-0.5 * r2[j]) == Approx(want).epsilon(1e-11).margin(1e-300));
          CHECK(want > 1e-8);  // a test of substance: no activation vanishes
        }
      }
    }
}

TEST_CASE("a missing input with no spread in the input model is mean imputation",
          "[expected][distances]") {
  std::mt19937_64 rng(3);
  const Centres c = centres_of(Shape::Full, rng);
  Centres model;
  model.means = Matrix{{0.5, -0.25, 1.5, 0.0}};
  model.shape = Shape::Diagonal;
  model.diagonal = Matrix{{1.0, 0.0, 1.0, 0.0}};  // columns 1 and 3 constant
  const Matrix x = {{0.3, missing_cell, -0.7, missing_cell}};
  const Matrix filled = {{0.3, -0.25, -0.7, 0.0}};
  const SquaredDistances distances(c, Metric::Shape);
  std::vector<double> r2(c.count());
  distances.compute_expected(&x(0, 0), model, r2.data());
  const Matrix want = test::brute_squared_distances(filled, c, true);
  for (std::size_t j = 0; j < c.count(); ++j) CHECK(r2[j] == Approx(want(0, j)).epsilon(1e-12));
}

TEST_CASE("the design matrix with an input model: expected activations on rows with missing "
          "inputs, the same bits elsewhere",
          "[expected][design]") {
  std::mt19937_64 rng(11);
  Matrix x = test::random_matrix(40, 4, rng);
  for (std::size_t i = 0; i < 40; i += 3) x(i, i % 4) = missing_cell;
  for (std::size_t i = 1; i < 40; i += 3) x(i, (i + 1) % 4) = x(i, (i + 2) % 4) = missing_cell;
  for (const Shape basis_shape : {Shape::Spherical, Shape::Diagonal, Shape::Full}) {
    const Centres c = centres_of(basis_shape, rng);
    const Centres model = input_model(Shape::Diagonal, rng);
    const ActivationBasis gaussian(true), other(false);
    DesignMatrix expected(x, c, gaussian, false, 0, 16);
    expected.set_input_model(&model);
    const Matrix phi = expected.materialise();
    const Matrix before = DesignMatrix(x, c, gaussian, false, 0, 16).materialise();
    DesignMatrix not_gaussian(x, c, other, false, 0, 16);
    not_gaussian.set_input_model(&model);
    const Matrix kept = not_gaussian.materialise();
    INFO("basis " << to_string(basis_shape));
    // A basis that is not a Gaussian activation keeps today's values, bit for bit.
    REQUIRE(std::memcmp(kept.data(), before.data(), kept.size() * sizeof(double)) == 0);
    for (std::size_t i = 0; i < x.shape(0); ++i) {
      bool missing = false;
      for (std::size_t k = 0; k < 4; ++k) missing |= std::isnan(x(i, k));
      INFO("row " << i);
      if (!missing) {
        CHECK(std::memcmp(&phi(i, 0), &before(i, 0), phi.shape(1) * sizeof(double)) == 0);
        continue;
      }
      for (std::size_t j = 0; j < c.count(); ++j)
        CHECK(phi(i, j) == Approx(quadrature(c, j, model, &x(i, 0))).epsilon(1e-11));
      CHECK(phi(i, c.count()) == 1.0);
    }
    // The log domain holds log E[phi].
    DesignMatrix logs(x, c, gaussian, true, 0, 16);
    logs.set_input_model(&model);
    const Matrix log_phi = logs.materialise();
    for (std::size_t i = 0; i < x.shape(0); ++i)
      for (std::size_t j = 0; j < c.count(); ++j)
        CHECK(log_phi(i, j) == Approx(std::log(phi(i, j))).epsilon(1e-13).margin(1e-14));
  }
}
