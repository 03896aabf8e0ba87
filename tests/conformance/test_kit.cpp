// The conformance kit tests itself: built-in components that are correct pass, and components
// broken in one known way are caught by the check meant for it, and only by checks that should.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <stdexcept>

#include <catch2/catch.hpp>
#include <radial/core/errors.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>

namespace {

using radial::Matrix;
using radial::ParamSpec;

// phi = exp(-r^2 / (2 s^2)) with s^2 = scale * (mean centre variance), fixed in prepare().
class ScaledGaussian final : public radial::Basis {
 public:
  // derivative_factor: map_derivative returns factor * (-phi / (2 s^2)); 1 is right, 0 says
  // the basis is not differentiable.
  ScaledGaussian(const radial::Params& params, bool keep_state, double derivative_factor = 0)
      : scale_(params.real("scale")), keep_state_(keep_state), factor_(derivative_factor) {}
  radial::Metric metric() const override { return radial::Metric::Euclidean; }
  void prepare(radial::Centres& centres, radial::FitContext&) override {
    double mean = 0;
    for (double v : centres.variances) mean += v;
    s2_ = scale_ * (centres.variances.size() ? mean / centres.variances.size() : 1.0) + 1.0;
  }
  void map(Matrix& r2) const override {
    for (double& v : r2) v = std::exp(-v / (2 * s2_));
  }
  bool differentiable() const override { return factor_ != 0; }
  void map_derivative(const Matrix& r2, const Matrix& phi, Matrix& dphi) const override {
    dphi.resize({r2.shape(0), r2.shape(1)});
    for (std::size_t i = 0; i < phi.size(); ++i)
      dphi.data()[i] = -factor_ * phi.data()[i] / (2 * s2_);
  }
  radial::State state() const override {
    if (!keep_state_) return {};
    return {{"s2", s2_}};
  }
  void load_state(const radial::State& state) override {
    if (keep_state_) s2_ = radial::state_get<double>(state, "s2", "kit basis");
  }

 private:
  double scale_;
  bool keep_state_;
  double factor_;
  double s2_ = 1.0;
};

// The first `count` rows as centres; or, when `seeded_by_device`, random rows chosen without
// the context's generator (the non-determinism the kit must catch); unless `silent`, with the
// stop record stated.
class FirstRows final : public radial::CentreLearner {
 public:
  FirstRows(const radial::Params& params, bool seeded_by_device, bool silent = false)
      : count_(static_cast<std::size_t>(params.integer("count"))),
        device_(seeded_by_device),
        silent_(silent) {}
  radial::Centres fit(const radial::Dataset& train, const radial::KernelPrior*,
                      radial::FitContext& ctx) override {
    if (train.rows() < count_) {
      throw radial::InputError("kit centres: " + std::to_string(train.rows()) + " rows for " +
                               std::to_string(count_) + " centres");
    }
    radial::Centres centres;
    centres.means = Matrix::from_shape({count_, train.features()});
    std::random_device device;
    for (std::size_t j = 0; j < count_; ++j) {
      const std::size_t row = device_ ? device() % train.rows() : j;
      for (std::size_t f = 0; f < train.features(); ++f) centres.means(j, f) = train.inputs(row, f);
    }
    if (!silent_) ctx.report.stop(radial::Termination::Converged, "rows chosen (not iterated)");
    return centres;
  }

 private:
  std::size_t count_;
  bool device_, silent_;
};

enum class Flaw { None, NoRowCheck, ForeignException, NoStopRecord };

// Zero weights, identity link on one-of-K targets (one column per class, as the identity
// rule asks): enough to exercise the kit's output checks.
class ZeroOutput final : public radial::OutputLayer {
 public:
  explicit ZeroOutput(Flaw flaw) : flaw_(flaw) {}
  radial::OutputWeights fit(const radial::TrainingProblem& problem, const radial::WeightPenalty*,
                            radial::FitContext& ctx) override {
    if (flaw_ == Flaw::ForeignException) throw std::logic_error("forgot to translate");
    if (flaw_ != Flaw::NoRowCheck && problem.design.rows() != problem.data.rows()) {
      throw radial::ShapeError("kit output: design and targets differ in rows");
    }
    radial::OutputWeights out;
    out.weights = Matrix::from_shape({problem.design.cols(), problem.data.num_classes});
    out.weights.fill(0.0);
    if (flaw_ != Flaw::NoStopRecord)
      ctx.report.stop(radial::Termination::Converged, "zero weights (not iterated)");
    return out;
  }

 private:
  Flaw flaw_;
};

enum class DecayFlaw { None, DoubledGradient, Overwrites };

// penalty = alpha/2 ||W||^2, gradient alpha W, Hessian alpha I (the weight-decay prior).
class Decay final : public radial::WeightPenalty {
 public:
  Decay(const radial::Params& params, DecayFlaw flaw) : alpha_(params.real("alpha")), flaw_(flaw) {}
  double penalty(const Matrix& w) const override {
    double sum = 0;
    for (double v : w) sum += v * v;
    return 0.5 * alpha_ * sum;
  }
  void add_gradient(const Matrix& w, Matrix& g) const override {
    if (g.shape() != w.shape()) throw radial::ShapeError("kit decay: gradient shape");
    const double factor = flaw_ == DecayFlaw::DoubledGradient ? 2 * alpha_ : alpha_;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (flaw_ == DecayFlaw::Overwrites) {
        g.data()[i] = factor * w.data()[i];
      } else {
        g.data()[i] += factor * w.data()[i];
      }
    }
  }
  void add_hessian(const Matrix& w, Matrix& h) const override {
    if (h.shape(0) != w.size() || h.shape(1) != w.size()) {
      throw radial::ShapeError("kit decay: Hessian shape");
    }
    for (std::size_t p = 0; p < w.size(); ++p) h(p, p) += alpha_;
  }

 private:
  double alpha_;
  DecayFlaw flaw_;
};

radial::ComponentInfo info(const char* id, radial::ParamTable params) {
  radial::ComponentInfo out;
  out.id = id;
  out.version = "1.0.0";
  out.summary = "conformance kit self-test component";
  out.params = std::move(params);
  return out;
}

radial::ParamTable scale_table() {
  return {ParamSpec::real("scale", 1.0, "multiplies the mean variance").at_least(0).at_most(10)};
}
radial::ParamTable count_table() {
  return {ParamSpec::integer("count", 4, "number of centres").at_least(1)};
}
radial::ParamTable alpha_table() {
  return {ParamSpec::real("alpha", 0.5, "prior precision").above(0)};
}

void register_kit_components(radial::Registrar& r) {
  r.add_basis(info("good-basis", scale_table()), [](const radial::Params& p) {
    return std::make_unique<ScaledGaussian>(p, true, 1.0);
  });
  // Its derivative is off by a factor of 2 (the slip of dropping the 1/2 of exp(-r^2/2s^2)).
  r.add_basis(info("wrong-derivative-basis", scale_table()), [](const radial::Params& p) {
    return std::make_unique<ScaledGaussian>(p, true, 2.0);
  });
  r.add_basis(info("forgetful-basis", scale_table()), [](const radial::Params& p) {
    return std::make_unique<ScaledGaussian>(p, false);
  });
  r.add_basis(info("sloppy-basis",
                   {ParamSpec::real("scale", 20.0, "").at_least(0).at_most(10),
                    ParamSpec::real("unused", 1.0, "a second parameter")}),
              [](const radial::Params& p) { return std::make_unique<ScaledGaussian>(p, true); });
  r.add_centre_learner(info("good-centres", count_table()), [](const radial::Params& p) {
    return std::make_unique<FirstRows>(p, false);
  });
  r.add_centre_learner(info("random-centres", count_table()), [](const radial::Params& p) {
    return std::make_unique<FirstRows>(p, true);
  });
  r.add_centre_learner(info("silent-centres", count_table()), [](const radial::Params& p) {
    return std::make_unique<FirstRows>(p, false, true);
  });
  r.add_output_layer(info("silent-output", {}), [](const radial::Params&) {
    return std::make_unique<ZeroOutput>(Flaw::NoStopRecord);
  });
  r.add_output_layer(info("good-output", {}), [](const radial::Params&) {
    return std::make_unique<ZeroOutput>(Flaw::None);
  });
  r.add_output_layer(info("unchecked-output", {}), [](const radial::Params&) {
    return std::make_unique<ZeroOutput>(Flaw::NoRowCheck);
  });
  r.add_output_layer(info("leaky-output", {}), [](const radial::Params&) {
    return std::make_unique<ZeroOutput>(Flaw::ForeignException);
  });
  // Declares a least-squares layer, which its class does not say it is.
  radial::ComponentInfo misdeclared = info("misdeclared-output", {});
  misdeclared.capabilities = [](const radial::Params&) {
    radial::Capabilities c;
    c.least_squares = true;
    return c;
  };
  r.add_output_layer(misdeclared, [](const radial::Params&) {
    return std::make_unique<ZeroOutput>(Flaw::None);
  });
  r.add_weight_penalty(info("good-decay", alpha_table()), [](const radial::Params& p) {
    return std::make_unique<Decay>(p, DecayFlaw::None);
  });
  r.add_weight_penalty(info("doubled-decay", alpha_table()), [](const radial::Params& p) {
    return std::make_unique<Decay>(p, DecayFlaw::DoubledGradient);
  });
  r.add_weight_penalty(info("overwriting-decay", alpha_table()), [](const radial::Params& p) {
    return std::make_unique<Decay>(p, DecayFlaw::Overwrites);
  });
}

enum class PriorFlaw { None, UnbalancedMixing, OverwritesMeans };

// Pulls each kernel toward its subkernels: log p = -alpha/2 sum_jk P(C_k|j) delta_jk, so the
// mean terms are weight_j = alpha sum_k P(C_k|j) and target_j = alpha sum_k P(C_k|j) mu_jk; it
// leaves the mixing weights alone (terms 0, which sum to 0 over k as eq 31 asks).
class PullToSubkernels final : public radial::KernelPrior {
 public:
  explicit PullToSubkernels(PriorFlaw flaw) : flaw_(flaw) {}
  double kernel_penalty(const radial::KernelPriorInput& in) const override {
    const Matrix delta = radial::subkernel_mahalanobis(in);
    double sum = 0;
    for (std::size_t j = 0; j < in.count(); ++j)
      for (std::size_t k = 0; k < in.classes(); ++k)
        sum += in.class_given_kernel(j, k) * delta(j, k);
    return 0.5 * sum;
  }
  Matrix kernel_distances(const radial::KernelPriorInput& in) const override {
    Matrix delta = radial::subkernel_mahalanobis(in);
    for (double& v : delta) v *= 0.5;
    return delta;
  }
  void add_mean_terms(const radial::KernelPriorInput& in,
                      radial::KernelMeanTerms& terms) const override {
    for (std::size_t j = 0; j < in.count(); ++j) {
      if (flaw_ == PriorFlaw::OverwritesMeans) terms.weight(j) = 0;
      for (std::size_t k = 0; k < in.classes(); ++k) {
        const double w = in.class_given_kernel(j, k);
        terms.weight(j) += w;
        for (std::size_t a = 0; a < in.dim(); ++a)
          terms.target(j, a) += w * in.subkernel_means(j, k, a);
      }
    }
  }
  void add_mixing_terms(const radial::KernelPriorInput& in, Matrix& terms) const override {
    if (flaw_ != PriorFlaw::UnbalancedMixing) return;
    for (std::size_t j = 0; j < in.count(); ++j) terms(j, 0) += 1.0;
  }

 private:
  PriorFlaw flaw_;
};

void register_kit_priors(radial::Registrar& r) {
  r.add_kernel_prior(info("good-prior", {}), [](const radial::Params&) {
    return std::make_unique<PullToSubkernels>(PriorFlaw::None);
  });
  r.add_kernel_prior(info("unbalanced-prior", {}), [](const radial::Params&) {
    return std::make_unique<PullToSubkernels>(PriorFlaw::UnbalancedMixing);
  });
  r.add_kernel_prior(info("overwriting-prior", {}), [](const radial::Params&) {
    return std::make_unique<PullToSubkernels>(PriorFlaw::OverwritesMeans);
  });
}

const radial::Registry& kit_registry() {
  static radial::Registry registry;
  static const bool added = (registry.add_builtin(register_kit_components, "test_kit.cpp"),
                             registry.add_builtin(register_kit_priors, "test_kit.cpp priors"),
                             true);
  (void)added;
  return registry;
}

std::vector<std::string> failed_checks(const radial::conformance::Report& report) {
  std::vector<std::string> out;
  for (const auto& finding : report.findings) {
    if (std::find(out.begin(), out.end(), finding.check) == out.end()) out.push_back(finding.check);
  }
  return out;
}

using Checks = std::vector<std::string>;

}  // namespace

TEST_CASE("the kit passes correct components of every slot", "[conformance-kit]") {
  for (const char* id : {"good-basis", "good-centres", "good-output", "good-decay"}) {
    const auto report = radial::conformance::run_checks(kit_registry(), id);
    INFO(report.str());
    CHECK(report.ok());
    CHECK(report.checks.size() >= 6);
  }
  radial::conformance::check_plugin(kit_registry(), "good-decay");
}

TEST_CASE("the kit catches parameter tables that contradict themselves", "[conformance-kit]") {
  const auto report = radial::conformance::run_checks(kit_registry(), "sloppy-basis");
  INFO(report.str());
  CHECK(failed_checks(report) == Checks{"parameters/declared"});
  CHECK_THAT(report.str(), Catch::Matchers::Contains("parameter 'scale' has an empty doc"));
  CHECK_THAT(report.str(), Catch::Matchers::Contains(
                               "scale = 20.0. Violated constraint: scale <= 10"));
}

TEST_CASE("the kit catches a basis whose state does not restore it", "[conformance-kit]") {
  const auto report = radial::conformance::run_checks(kit_registry(), "forgetful-basis");
  INFO(report.str());
  CHECK(failed_checks(report) == Checks{"basis/state-round-trip"});
}

TEST_CASE("the kit catches a basis whose derivative is wrong", "[conformance-kit]") {
  const auto report = radial::conformance::run_checks(kit_registry(), "wrong-derivative-basis");
  INFO(report.str());
  CHECK(failed_checks(report) == Checks{"basis/derivative"});
  CHECK_THAT(report.str(), Catch::Matchers::Contains("central differences"));
  // The right derivative passes (with the other checks, in "passes correct components").
  const auto good = radial::conformance::run_checks(kit_registry(), "good-basis");
  CHECK(std::find(good.checks.begin(), good.checks.end(), "basis/derivative") != good.checks.end());
  CHECK_FALSE(good.failed("basis/derivative"));
}

TEST_CASE("the kit catches centres that ignore the seed", "[conformance-kit]") {
  const auto report = radial::conformance::run_checks(kit_registry(), "random-centres");
  INFO(report.str());
  // Both determinism checks; with 4 of 80 rows drawn twice, equal draws are a 1e-7 chance.
  CHECK(failed_checks(report) == Checks{"centres/fit-twice", "centres/determinism"});
}

TEST_CASE("the kit catches centre learners and output layers that do not say why they stopped",
          "[conformance-kit]") {
  for (const char* id : {"silent-centres", "silent-output"}) {
    const auto report = radial::conformance::run_checks(kit_registry(), id);
    INFO(report.str());
    CHECK(failed_checks(report) == Checks{std::string(id) == "silent-centres"
                                              ? "centres/stop-record"
                                              : "output/stop-record"});
    CHECK_THAT(report.str(), Catch::Matchers::Contains("ctx.report.stop(Termination, message)"));
  }
}

TEST_CASE("the kit catches output layers that skip shape checks or leak exceptions",
          "[conformance-kit]") {
  const auto unchecked = radial::conformance::run_checks(kit_registry(), "unchecked-output");
  INFO(unchecked.str());
  CHECK(failed_checks(unchecked) == Checks{"output/row-mismatch-refused"});

  const auto leaky = radial::conformance::run_checks(kit_registry(), "leaky-output");
  INFO(leaky.str());
  CHECK(failed_checks(leaky) == Checks{"output/fit"});
  CHECK_THAT(leaky.str(), Catch::Matchers::Contains("non-Radial exception") &&
                              Catch::Matchers::Contains("forgot to translate"));
}

TEST_CASE("the kit catches capabilities declared otherwise than the class answers",
          "[conformance-kit]") {
  const auto report = radial::conformance::run_checks(kit_registry(), "misdeclared-output");
  INFO(report.str());
  CHECK(failed_checks(report) == Checks{"output/capabilities"});
  CHECK_THAT(report.str(), Catch::Matchers::Contains("declares least_squares = true, but the "
                                                     "instance answers false"));
}

TEST_CASE("the kit compares weight-penalty derivatives with finite differences",
          "[conformance-kit]") {
  const auto doubled = radial::conformance::run_checks(kit_registry(), "doubled-decay");
  INFO(doubled.str());
  // The gradient is twice d penalty/dW; the Hessian (alpha I) no longer matches its FD either.
  CHECK(failed_checks(doubled) == Checks{"weight-penalty/gradient", "weight-penalty/hessian"});

  const auto overwriting = radial::conformance::run_checks(kit_registry(), "overwriting-decay");
  INFO(overwriting.str());
  CHECK(failed_checks(overwriting) == Checks{"weight-penalty/adds"});
}

TEST_CASE("the kit checks a kernel prior's M-step terms", "[conformance-kit]") {
  const auto good = radial::conformance::run_checks(kit_registry(), "good-prior");
  INFO(good.str());
  CHECK(good.ok());
  CHECK(good.slot == radial::Slot::KernelPrior);

  const auto unbalanced = radial::conformance::run_checks(kit_registry(), "unbalanced-prior");
  INFO(unbalanced.str());
  CHECK(failed_checks(unbalanced) == Checks{"kernel-prior/mixing-terms"});

  const auto overwriting = radial::conformance::run_checks(kit_registry(), "overwriting-prior");
  INFO(overwriting.str());
  CHECK(failed_checks(overwriting) == Checks{"kernel-prior/mean-terms-add"});
}

TEST_CASE("the kit names an id that is not registered", "[conformance-kit]") {
  CHECK_THROWS_WITH(radial::conformance::run_checks(kit_registry(), "good-basi"),
                    Catch::Matchers::Contains("no plugin 'good-basi'") &&
                        Catch::Matchers::Contains("did you mean 'good-basis'?"));
}
