// The trainer end to end against an independent source: two pipelines with fixed Gaussian
// centres of known variances (tests/reference/trainer/*.toml) trained by radial::train, and the
// same fits recomputed with NumPy (ridge by numpy.linalg.lstsq) and scikit-learn
// (LogisticRegression with C = 1/alpha) by tests/reference/trainer_fixed_centres.py, which
// writes the centres and trainer_fixed_centres.json. Design matrix, weights, penalised error and
// the training/test metrics must agree to 1e-8 (relative), far below any change a bug in
// the basis, the standardisation switch, the bias column, the penalty or the optimiser makes.
#include <fstream>
#include <memory>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <radial/testing/paths.hpp>

#include "radial/model/network.hpp"
#include "radial/core/params.hpp"
#include "radial/pipeline/pipeline.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"
#include "radial/training/trainer.hpp"

namespace {

const radial::Registry& plugins() { return radial::testing::shipped_registry(); }

std::filesystem::path reference_dir() {
  return radial::testing::source_dir() / "tests" / "reference" / "trainer";
}

nlohmann::json reference(const char* name) {
  std::ifstream in(reference_dir() / "trainer_fixed_centres.json");
  REQUIRE(in);
  return nlohmann::json::parse(in).at(name);
}

radial::TrainingResult train(const char* pipeline) {
  return radial::train(radial::read_pipeline(reference_dir() / pipeline, plugins()), plugins());
}

void check_weights(const radial::Matrix& w, const nlohmann::json& expected) {
  const auto ref = expected.get<std::vector<double>>();
  REQUIRE(w.shape(0) == ref.size());
  REQUIRE(w.shape(1) == 1);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    INFO("W(" << i << ", 0)");
    CHECK(w(i, 0) == Approx(ref[i]).epsilon(1e-8).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("ridge regression on fixed Gaussian centres matches NumPy", "[trainer][reference]") {
  const auto ref = reference("sine_ridge");
  const radial::TrainingResult r = train("sine-ridge.toml");

  // The design matrix Phi: the trained network with W = I outputs Phi itself.
  radial::Model unit = r.model;
  const std::size_t p = unit.weights.shape(0);
  unit.weights = radial::Matrix::from_shape({p, p});
  unit.weights.fill(0.0);
  for (std::size_t j = 0; j < p; ++j) unit.weights(j, j) = 1.0;
  const auto& info = plugins().require(radial::Slot::Basis, unit.basis_id);
  auto basis = plugins().make_basis(
      unit.basis_id, radial::validate_params(info.params, unit.basis_params, "test"));
  basis->load_state(unit.basis_state);
  const radial::Dataset data = radial::read_training_data(
      radial::read_pipeline(reference_dir() / "sine-ridge.toml", plugins())).train;
  const radial::Matrix phi = radial::Network(unit, basis).predict(data.inputs);
  const auto phi_ref = ref.at("design_first_rows").get<std::vector<std::vector<double>>>();
  for (std::size_t n = 0; n < phi_ref.size(); ++n) {
    REQUIRE(phi_ref[n].size() == p);
    for (std::size_t j = 0; j < p; ++j) {
      INFO("Phi(" << n << ", " << j << ")");
      CHECK(phi(n, j) == Approx(phi_ref[n][j]).epsilon(1e-12).margin(1e-300));
    }
  }

  check_weights(r.model.weights, ref.at("weights"));
  CHECK(r.report.output.fit.final_error ==
        Approx(ref.at("final_error").get<double>()).epsilon(1e-8));
  CHECK(r.report.train.mse == Approx(ref.at("train_mse").get<double>()).epsilon(1e-8));
  REQUIRE(r.report.test);
  CHECK(r.report.test->mse == Approx(ref.at("test_mse").get<double>()).epsilon(1e-8));
}

TEST_CASE("logistic IRLS with weight decay on fixed Gaussian centres matches scikit-learn",
          "[trainer][reference]") {
  const auto ref = reference("synth3_logistic");
  // The reference is the minimiser to rounding level, not where scikit-learn stopped.
  REQUIRE(ref.at("max_abs_gradient").get<double>() < 1e-10);
  const radial::TrainingResult r = train("synth3-logistic.toml");
  CHECK(r.report.output.fit.converged());
  check_weights(r.model.weights, ref.at("weights"));
  CHECK(r.report.output.fit.final_error ==
        Approx(ref.at("final_error").get<double>()).epsilon(1e-8));
  REQUIRE(r.report.train.cross_entropy);
  CHECK(*r.report.train.cross_entropy ==
        Approx(ref.at("train_cross_entropy").get<double>()).epsilon(1e-8));
  REQUIRE(r.report.train.error_rate);
  CHECK(*r.report.train.error_rate == ref.at("train_error_rate").get<double>());
}
