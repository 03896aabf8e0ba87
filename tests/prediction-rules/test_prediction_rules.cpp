// Prediction rules: the registry by name, each framework rule against its formula evaluated
// here by hand, and a rule registered by the caller used by the network and the model store.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "radial/network/basis.hpp"
#include "radial/core/errors.hpp"
#include "radial/model/model_store.hpp"
#include "radial/model/network.hpp"
#include "radial/network/prediction_rule.hpp"

using namespace radial;

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// y = 2 Phi W: a rule the framework does not know.
class DoubledRule final : public PredictionRule {
 public:
  bool probabilities() const override { return false; }
  std::string check(const Matrix& w, std::size_t) const override {
    return w.shape(1) == 1 ? "" : "one column";
  }
  void predict(const Matrix& design, const Matrix& w, Matrix& out) const override {
    out.resize({design.shape(0), 1});
    for (std::size_t r = 0; r < design.shape(0); ++r) {
      double a = 0;
      for (std::size_t j = 0; j < design.shape(1); ++j) a += design(r, j) * w(j, 0);
      out(r, 0) = 2 * a;
    }
  }
};

// phi(r) = exp(-r^2 / 2), with its log map.
class UnitGaussian final : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (double& v : r2) v = std::exp(-0.5 * v);
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override {
    for (double& v : r2) v = -0.5 * v;
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

const PredictionRule& rule(const char* name) {
  const PredictionRule* r = find_prediction_rule(name);
  REQUIRE(r != nullptr);
  return *r;
}

}  // namespace

TEST_CASE("the framework registers identity, logistic, softmax and bayes", "[prediction-rule]") {
  for (const char* name : {"identity", "logistic", "softmax", "bayes"}) {
    INFO(name);
    CHECK(find_prediction_rule(name) != nullptr);
    CHECK(link_from_string(name) == Link(name));
  }
  CHECK(find_prediction_rule("probit") == nullptr);
  CHECK_FALSE(link_from_string("Softmax").has_value());
  CHECK(rule("bayes").log_domain());
  CHECK_FALSE(rule("softmax").log_domain());
  CHECK(rule("logistic").outputs(1) == 2);
  CHECK(Link() == Link::Identity);
  // Which outputs are class probabilities (cross-entropy, --probabilities, predict_proba).
  CHECK_FALSE(gives_probabilities(Link::Identity));
  for (const Link& link : {Link::Logistic, Link::Softmax, Link::Bayes}) CHECK(gives_probabilities(link));
  CHECK_FALSE(gives_probabilities(Link("probit")));  // not registered
}

TEST_CASE("a name belongs to one rule until its owner removes it", "[prediction-rule]") {
  static const DoubledRule doubled{}, other{};
  register_prediction_rule("doubled", doubled);
  register_prediction_rule("doubled", doubled);  // the same object again: nothing changes
  CHECK(find_prediction_rule("doubled") == &doubled);
  CHECK_FALSE(gives_probabilities(Link("doubled")));  // a plugin's rule of values
  CHECK_THROWS_WITH(register_prediction_rule("doubled", other),
                    Catch::Contains("'doubled' is already registered"));
  CHECK_THROWS_AS(register_prediction_rule("softmax", other), Error);
  unregister_prediction_rule("doubled", other);  // not its owner
  CHECK(find_prediction_rule("doubled") == &doubled);
  unregister_prediction_rule("doubled", doubled);
  CHECK(find_prediction_rule("doubled") == nullptr);
  CHECK(find_prediction_rule("softmax") != nullptr);
}

TEST_CASE("the linear rules apply their link to Phi W", "[prediction-rule]") {
  // Phi: 2 rows of [phi_1, phi_2, 1]; W: 3 x 1 and 3 x 3.
  const Matrix phi = {{0.5, 0.25, 1.0}, {1.0, -2.0, 1.0}};
  const Matrix w1 = {{2.0}, {-4.0}, {0.5}};  // a = 0.5, 10.5
  Matrix y;
  rule("identity").predict(phi, w1, y);
  CHECK(y(0, 0) == 0.5);
  CHECK(y(1, 0) == 10.5);
  rule("logistic").predict(phi, w1, y);
  REQUIRE(y.shape(1) == 2);
  CHECK(y(0, 1) == Approx(1 / (1 + std::exp(-0.5))).epsilon(1e-15));
  CHECK(y(0, 0) == Approx(1 / (1 + std::exp(0.5))).epsilon(1e-15));
  CHECK(y(1, 0) == Approx(std::exp(-10.5) / (1 + std::exp(-10.5))).epsilon(1e-14));

  const Matrix w3 = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};  // a = phi
  rule("softmax").predict(phi, w3, y);
  const double s0 = std::exp(0.5) + std::exp(0.25) + std::exp(1.0);
  CHECK(y(0, 0) == Approx(std::exp(0.5) / s0).epsilon(1e-15));
  CHECK(y(0, 2) == Approx(std::exp(1.0) / s0).epsilon(1e-15));

  CHECK(rule("softmax").check(w3, 2) == "softmax weights have 3 columns for 2 classes");
  CHECK_THAT(rule("logistic").check(w1, 0), Catch::Contains("regression outputs have link identity"));
  Matrix bad = w1;
  bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THAT(rule("identity").check(bad, 0), Catch::Contains("weights must be finite"));
}

TEST_CASE("bayes: stored log pi and log P give the mixture posterior", "[prediction-rule]") {
  // Class 0: 0.25 phi_1 + 0.75 phi_2; class 1: phi_3. Priors 0.4, 0.6.
  Centres c;
  c.means = Matrix{{0.0}, {1.0}, {3.0}};
  c.mixing = Matrix{{0.25, 0.0}, {0.75, 0.0}, {0.0, 1.0}};
  c.class_priors = Vector{0.4, 0.6};
  const Matrix w = mixture_posterior_weights(c);
  REQUIRE(w.shape(0) == 4);
  CHECK(w(0, 0) == std::log(0.25));
  CHECK(w(1, 1) == minus_inf);
  CHECK(w(2, 1) == 0.0);
  CHECK(w(3, 0) == std::log(0.4));
  CHECK(rule("bayes").check(w, 2).empty());  // -inf is log 0, allowed

  const double phi[3] = {0.2, 0.05, 0.01};
  const Matrix log_phi = {{std::log(phi[0]), std::log(phi[1]), std::log(phi[2])}};
  Matrix y;
  rule("bayes").predict(log_phi, w, y);
  const double a0 = 0.4 * (0.25 * phi[0] + 0.75 * phi[1]), a1 = 0.6 * phi[2];
  CHECK(y(0, 0) == Approx(a0 / (a0 + a1)).epsilon(1e-14));
  CHECK(y(0, 1) == Approx(a1 / (a0 + a1)).epsilon(1e-14));

  Matrix bad = w;
  bad(0, 0) = std::numeric_limits<double>::infinity();
  CHECK_THAT(rule("bayes").check(bad, 2), Catch::Contains("logs of probabilities"));
  CHECK_THROWS_AS(mixture_posterior_weights(Centres{}), ShapeError);
}

TEST_CASE("a registered rule drives the network and survives the model store",
          "[prediction-rule]") {
  static const DoubledRule doubled{};
  register_prediction_rule("doubled", doubled);
  Model m;
  m.task = Task::Regression;
  m.feature_names = {"x"};
  m.centres.means = Matrix{{0.0}, {2.0}};
  m.basis_id = "unit-gaussian";
  m.output_id = "doubling-output";
  m.link = Link("doubled");
  m.weights = Matrix{{1.0}, {-1.0}, {0.5}};
  const std::string bytes = serialize_model(m);
  const Model back = deserialize_model(bytes, "doubled.model");
  CHECK(back.link == Link("doubled"));
  const Network network(back, std::make_shared<UnitGaussian>());
  const Matrix y = network.predict(Matrix{{1.0}});
  CHECK(y(0, 0) == Approx(2 * (std::exp(-0.5) - std::exp(-0.5) + 0.5)).epsilon(1e-15));

  // Without the rule the file is refused, naming the rule and the output plugin.
  unregister_prediction_rule("doubled", doubled);
  CHECK_THROWS_WITH(deserialize_model(bytes, "doubled.model"),
                    Catch::Contains("link 'doubled'") && Catch::Contains("'doubling-output'"));
  CHECK_THROWS_AS(Network(m, std::make_shared<UnitGaussian>()), ModelFileError);
}

TEST_CASE("a bayes model of record 1 gets its weights from its centres on load",
          "[prediction-rule][model-store]") {
  // Written by the build before links were open: link number 3, no weights.
  const Model m = load_model(std::string(RADIAL_PREDICTION_RULES_DATA) +
                             "/iris-gmm-full-bayes.model");
  REQUIRE(m.link == Link::Bayes);
  const std::size_t count = m.centres.count(), k = m.class_values.size();
  REQUIRE(m.weights.shape(0) == count + 1);
  REQUIRE(m.weights.shape(1) == k);
  for (std::size_t j = 0; j < count; ++j)
    for (std::size_t c = 0; c < k; ++c) CHECK(m.weights(j, c) == std::log(m.centres.mixing(j, c)));
  for (std::size_t c = 0; c < k; ++c) CHECK(m.weights(count, c) == std::log(m.centres.class_priors(c)));
  // Saved again it is record 2 and reads back unchanged.
  const Model again = deserialize_model(serialize_model(m), "again.model");
  CHECK(again.link == Link::Bayes);
  CHECK((again.weights == m.weights));
}
