// The network's forward pass against direct evaluation of its formulas:
//   y = link(W^T [phi(z), 1]),  z = (x - mean) / scale,  phi_j = exp(-||z - c_j||^2 / 2)
// and the Bayes posterior p(C_k|x) = P(C_k) sum_j pi_jk phi_j(x) / sum_l P(C_l) sum_j pi_jl phi_j(x).
// The basis is defined here (plugins are loaded at run time and tested on their own).
#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <unistd.h>

#include "radial/network/basis.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"
#include "unit_gaussian.hpp"

using namespace radial;
using Catch::Matchers::Contains;

using radial::testing::UnitGaussian;

namespace {

// The same basis without a log map (as a thin-plate spline would be).
class NoLogMap : public UnitGaussian {
 public:
  bool has_log_map() const override { return false; }
};

Model tiny_model(Link link, std::size_t outputs) {
  Model m;
  m.task = Task::Classification;
  m.feature_names = {"x1", "x2"};
  m.standardize = true;
  m.standardiser.mean = Vector{1.0, -1.0};
  m.standardiser.scale = Vector{2.0, 0.5};
  m.centres.means = Matrix{{0.0, 0.0}, {1.0, 0.0}, {0.0, 2.0}};
  m.basis_id = "unit-gaussian";
  m.link = link;
  if (link == Link::Bayes) {
    m.centres.mixing = Matrix{{0.5, 0.0}, {0.5, 0.25}, {0.0, 0.75}};
    m.centres.class_priors = Vector{0.3, 0.7};
    m.weights = mixture_posterior_weights(m.centres);  // log pi_jk, then log P(C_k)
    m.class_values = {0, 1};
    return m;
  }
  const std::vector<double> w = {0.7, -1.2, 0.4, 2.0, -0.3, 1.1, 0.25, -0.8,
                                 1.5, 0.05, -2.2, 0.6};
  m.weights = Matrix::from_shape({4, outputs});
  for (std::size_t i = 0; i < m.weights.size(); ++i) m.weights.data()[i] = w[i % w.size()];
  for (std::size_t k = 0; k < (link == Link::Logistic ? 2 : outputs); ++k)
    m.class_values.push_back(double(k));
  return m;
}

// phi_j(z) for the standardised row x, by the definition.
std::vector<double> direct_phi(const Model& m, const double* x) {
  const std::size_t d = m.centres.dim();
  std::vector<double> phi;
  for (std::size_t j = 0; j < m.centres.count(); ++j) {
    double r2 = 0;
    for (std::size_t a = 0; a < d; ++a) {
      const double z =
          m.standardize ? (x[a] - m.standardiser.mean(a)) / m.standardiser.scale(a) : x[a];
      r2 += (z - m.centres.means(j, a)) * (z - m.centres.means(j, a));
    }
    phi.push_back(std::exp(-0.5 * r2));
  }
  return phi;
}

// a_k = sum_j w_jk phi_j + w_Mk (bias row last).
std::vector<double> direct_activations(const Model& m, const double* x) {
  const std::vector<double> phi = direct_phi(m, x);
  const std::size_t mm = phi.size();
  std::vector<double> a(m.weights.shape(1), 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k] = m.weights(mm, k);
    for (std::size_t j = 0; j < mm; ++j) a[k] += m.weights(j, k) * phi[j];
  }
  return a;
}

Matrix inputs_4x2() {
  return Matrix{{1.0, -1.0}, {3.0, -1.0}, {0.2, 0.4}, {-2.5, 1.75}};
}

void check_close(double value, double expected, double tolerance = 1e-12) {
  CHECK(value == Approx(expected).epsilon(tolerance).margin(tolerance));
}

// The tiny model with `link` and its outputs on inputs_4x2().
struct Predicted {
  Predicted(Link link, std::size_t outputs)
      : m(tiny_model(link, outputs)), y(Network(m, std::make_shared<UnitGaussian>()).predict(x)) {}
  const Model m;
  const Matrix x = inputs_4x2();
  const Matrix y;
};

}  // namespace

TEST_CASE("identity link: linear outputs equal W^T [phi(z), 1]", "[network]") {
  const auto& [m, x, y] = Predicted(Link::Identity, 2);
  REQUIRE(y.shape(0) == 4);
  REQUIRE(y.shape(1) == 2);
  for (std::size_t n = 0; n < 4; ++n) {
    const std::vector<double> a = direct_activations(m, x.data() + n * 2);
    for (std::size_t k = 0; k < 2; ++k) check_close(y(n, k), a[k]);
  }
  // Row 0 sits on centre 0 after standardisation: phi = (1, e^-1/2, e^-2).
  check_close(y(0, 0), 0.7 * 1.0 + 0.4 * std::exp(-0.5) + -0.3 * std::exp(-2.0) + 0.25);

  // Without a standardiser the raw inputs go straight to the basis.
  Model raw = m;
  raw.standardize = false;
  raw.standardiser = Standardiser();
  const Matrix y_raw = Network(raw, std::make_shared<UnitGaussian>()).predict(x);
  for (std::size_t n = 0; n < 4; ++n) {
    const std::vector<double> a = direct_activations(raw, x.data() + n * 2);
    for (std::size_t k = 0; k < 2; ++k) check_close(y_raw(n, k), a[k]);
  }
  // Row 1 = (3, -1) raw: r^2 = (10, 5, 18).
  check_close(y_raw(1, 1), -1.2 * std::exp(-5.0) + 2.0 * std::exp(-2.5) + 1.1 * std::exp(-9.0) - 0.8);
}

TEST_CASE("logistic link gives [1 - y, y] with y = 1 / (1 + e^-a)", "[network]") {
  const auto& [m, x, y] = Predicted(Link::Logistic, 1);
  REQUIRE(y.shape(1) == 2);
  for (std::size_t n = 0; n < 4; ++n) {
    const double a = direct_activations(m, x.data() + n * 2)[0];
    check_close(y(n, 1), 1.0 / (1.0 + std::exp(-a)));
    check_close(y(n, 0), std::exp(-a) / (1.0 + std::exp(-a)));
    check_close(y(n, 0) + y(n, 1), 1.0, 1e-15);
  }
}

TEST_CASE("softmax link gives normalised exponentials", "[network]") {
  const auto& [m, x, y] = Predicted(Link::Softmax, 3);
  REQUIRE(y.shape(1) == 3);
  for (std::size_t n = 0; n < 4; ++n) {
    const std::vector<double> a = direct_activations(m, x.data() + n * 2);
    const double z = std::exp(a[0]) + std::exp(a[1]) + std::exp(a[2]);
    for (std::size_t k = 0; k < 3; ++k) check_close(y(n, k), std::exp(a[k]) / z);
  }
  const Labels labels = Network::classify(y);
  for (std::size_t n = 0; n < 4; ++n) {
    const std::vector<double> a = direct_activations(m, x.data() + n * 2);
    CHECK(labels(n) == std::max_element(a.begin(), a.end()) - a.begin());
  }
}

TEST_CASE("Bayes link gives P(C_k) sum_j pi_jk p(x|j), normalised", "[network]") {
  const auto& [m, x, y] = Predicted(Link::Bayes, 2);
  REQUIRE(y.shape(1) == 2);
  for (std::size_t n = 0; n < 4; ++n) {
    const std::vector<double> phi = direct_phi(m, x.data() + n * 2);
    double joint[2], total = 0;
    for (std::size_t k = 0; k < 2; ++k) {
      double s = 0;
      for (std::size_t j = 0; j < 3; ++j) s += m.centres.mixing(j, k) * phi[j];
      joint[k] = m.centres.class_priors(k) * s;
      total += joint[k];
    }
    for (std::size_t k = 0; k < 2; ++k) check_close(y(n, k), joint[k] / total);
  }
}

TEST_CASE("Bayes posteriors stay finite far from every centre", "[network]") {
  // At z = (0, 62) every phi_j underflows to 0 in the linear domain (r^2 >= 3600), so the
  // direct formula is 0/0; shifting by the smallest r^2 gives the same ratio without underflow.
  const Model m = tiny_model(Link::Bayes, 2);
  const Network net(m, std::make_shared<UnitGaussian>());
  const Matrix x = {{1.0, 30.0}};  // z = (0, 62)
  const Matrix y = net.predict(x);
  const double r2[3] = {62.0 * 62.0, 1.0 + 62.0 * 62.0, 60.0 * 60.0};
  REQUIRE(std::exp(-0.5 * r2[2]) == 0.0);
  double joint[2], total = 0;
  for (std::size_t k = 0; k < 2; ++k) {
    double s = 0;
    for (std::size_t j = 0; j < 3; ++j) s += m.centres.mixing(j, k) * std::exp(-0.5 * (r2[j] - r2[2]));
    joint[k] = m.centres.class_priors(k) * s;
    total += joint[k];
  }
  for (std::size_t k = 0; k < 2; ++k) {
    CHECK(std::isfinite(y(0, k)));
    check_close(y(0, k), joint[k] / total);
  }
  // Class 0 has no weight on centre 2, the only one within reach: its posterior is e^-122-small
  // and still relatively exact.
  CHECK(y(0, 0) < 1e-50);
  CHECK(y(0, 0) / (joint[0] / total) == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("predictions across many row blocks match the direct formula", "[network]") {
  const Model m = tiny_model(Link::Softmax, 3);
  const Network net(m, std::make_shared<UnitGaussian>());
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 2.0);
  const std::size_t n = 2500;  // 1024-row blocks: two full and one partial
  Matrix x = Matrix::from_shape({n, 2});
  for (auto& v : x) v = normal(rng);
  const Matrix y = net.predict(x);
  REQUIRE(y.shape(0) == n);
  std::size_t wrong = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::vector<double> a = direct_activations(m, x.data() + r * 2);
    const double z = std::exp(a[0]) + std::exp(a[1]) + std::exp(a[2]);
    for (std::size_t k = 0; k < 3; ++k)
      wrong += std::fabs(y(r, k) - std::exp(a[k]) / z) > 1e-12;
  }
  CHECK(wrong == 0);
  CHECK(net.predict(Matrix::from_shape({0, 2})).shape(1) == 3);
}

TEST_CASE("a saved and loaded model predicts identically", "[network]") {
  const Model m = tiny_model(Link::Softmax, 3);
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("radial-network-" + std::to_string(::getpid()) + ".radial");
  save_model(m, file);
  const Model loaded = load_model(file);
  std::filesystem::remove(file);
  const auto basis = std::make_shared<UnitGaussian>();
  const Matrix x = inputs_4x2();
  const Matrix a = Network(m, basis).predict(x);
  const Matrix b = Network(loaded, basis).predict(x);
  CHECK(a == b);
}

TEST_CASE("the network refuses wrong inputs and unusable models", "[network]") {
  const Model m = tiny_model(Link::Softmax, 3);
  const Network net(m, std::make_shared<UnitGaussian>());
  CHECK_THROWS_AS(net.predict(Matrix::from_shape({5, 3})), ShapeError);
  CHECK_THROWS_WITH(net.predict(Matrix::from_shape({5, 3})),
                    Contains("expects 2 features, found 3"));

  const Model bayes = tiny_model(Link::Bayes, 2);
  CHECK_THROWS_AS(Network(bayes, std::make_shared<NoLogMap>()), ModelFileError);
  CHECK_THROWS_WITH(Network(bayes, std::make_shared<NoLogMap>()), Contains("no log map"));

  Model short_weights = tiny_model(Link::Identity, 2);
  short_weights.weights = Matrix::from_shape({3, 2});
  CHECK_THROWS_WITH(Network(short_weights, std::make_shared<UnitGaussian>()),
                    Contains("need 4 rows"));
}

TEST_CASE("an output that overflows is refused, never returned", "[network]") {
  // Finite weights of 1e308 in output 2: on row 1, a_2 = 1e308 (phi_1 + phi_2 + phi_3 + 1) with
  // phi = (1, e^-1/2, e^-2) exceeds the largest double (about 1.8e308).
  Model m = tiny_model(Link::Identity, 2);
  for (std::size_t j = 0; j < 4; ++j) m.weights(j, 1) = 1e308;
  const Network net(m, std::make_shared<UnitGaussian>());
  CHECK_THROWS_AS(net.predict(inputs_4x2()), InputError);
  CHECK_THROWS_WITH(net.predict(inputs_4x2()),
                    Contains("output 2 of input row 1 is infinite") && Contains("1e+308"));
  // Softmax takes the limit of an infinite activation: probability 1 for that class.
  Model s = tiny_model(Link::Softmax, 3);
  for (std::size_t j = 0; j < 4; ++j) s.weights(j, 0) = 1e308;
  const Matrix p = Network(s, std::make_shared<UnitGaussian>()).predict(inputs_4x2());
  CHECK(p(0, 0) == 1.0);
  CHECK(p(0, 1) == 0.0);
  CHECK(p(0, 2) == 0.0);
}

TEST_CASE("classify takes the first arg max of each row", "[network]") {
  const Matrix outputs = {{0.1, 0.7, 0.2}, {0.5, 0.5, 0.0}, {-3.0, -1.0, -2.0}};
  const Labels labels = Network::classify(outputs);
  CHECK(labels(0) == 1);
  CHECK(labels(1) == 0);
  CHECK(labels(2) == 1);
}
