#pragma once
// The conformance kit: checks every Radial plugin must pass, ours and third parties' (the idea of
// Ceres' manifold_test_utils.h and scikit-learn's check_estimator). Header-only; needs Catch2 v2
// and the framework library.
//
//   #include <radial/sdk/conformance.hpp>
//
//   TEST_CASE("my plugin conforms") {
//     radial::Registry registry;
//     registry.load_file(MY_PLUGIN_FILE);   // e.g. "$<TARGET_FILE:my-plugin>" from CMake
//     radial::conformance::check_plugin(registry, "my-id");
//   }
//
// What is checked, for the component `id` in whatever slot it registered:
//   parameters   every parameter has a name and a doc; defaults pass their own check; values just
//                outside each range, unknown choices, wrong types and unknown names are refused
//                by validate_params with a ParameterError; the component is made from defaults
//                (plus Options::params, which must supply any required parameter).
//   basis        prepare twice equals prepare once; two instances agree; map is finite and works
//                block by block (row by row equals the whole block to 1e-13); log_map = log(map)
//                where provided;
//                state() survives the model store (serialize_state / deserialize_state) and
//                load_state() maps identically; an empty state is refused with a Radial error;
//                inconsistent centres are refused with a Radial error, never another exception.
//   centres      fitting twice with the same seed equals fitting once, and two instances agree
//                (every array of Centres, bit for bit); the result passes Centres::check() and
//                has the data's dimension; an empty data set is refused with a Radial error
//                (unless the learner ignores the data and returns the same centres).
//   output       the same determinism on weights and link; the link names a registered
//                prediction rule, weights are (M+1) x outputs and the rule accepts them for the
//                data's classes; design rows and target rows that differ are refused with a
//                Radial error.
//   weight-penalty  determinism; penalty, gradient and Hessian agree with central finite
//                differences; add_gradient / add_hessian add (never overwrite); a gradient or
//                Hessian of the wrong shape is refused with a Radial error.
//   kernel-prior determinism; -log p(theta) and the distances D_jk are finite, D_jk >= 0 and
//                M x K; add_mean_terms / add_mixing_terms add (never overwrite); the mixing
//                terms of every kernel sum to 0 over the classes (eq 31 of Constantinopoulos et
//                al. 2001); the mean-term weights are >= 0.
//
// run_checks() returns the findings without touching Catch (so the kit can test itself);
// check_plugin() turns each finding into a failed Catch check.

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "radial/basis.hpp"
#include "radial/centre_learner.hpp"
#include "radial/dataset.hpp"
#include "radial/design_matrix.hpp"
#include "radial/errors.hpp"
#include "radial/fit_context.hpp"
#include "radial/model_store.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/output_layer.hpp"
#include "radial/prediction_rule.hpp"
#include "radial/params.hpp"
#include "radial/registry.hpp"
#include "radial/kernel_prior.hpp"
#include "radial/weight_penalty.hpp"

namespace radial::conformance {

struct Options {
  std::uint64_t seed = 20240917;
  // Given to validate_params before the defaults: values for required parameters, or a
  // configuration other than the defaults to put through the same checks.
  std::map<std::string, ParamValue> params;
  // The generated classification data: two overlapping Gaussian classes.
  std::size_t rows_per_class = 40;
  std::size_t features = 2;
  // Weight penalties: |analytic - finite difference| <= tolerance * (1 + |finite difference|).
  double derivative_tolerance = 1e-5;
};

struct Finding {
  std::string check;    // e.g. "basis/state-round-trip"
  std::string message;  // what was wrong, with numbers
};

struct Report {
  std::string id;
  Slot slot = Slot::Basis;
  std::vector<std::string> checks;  // every check that ran
  std::vector<Finding> findings;    // the ones that failed

  bool ok() const { return findings.empty() && !checks.empty(); }
  bool failed(const std::string& check) const {
    for (const auto& finding : findings) {
      if (finding.check == check) return true;
    }
    return false;
  }
  std::string str() const {
    std::ostringstream out;
    out << to_string(slot) << " plugin '" << id << "': " << checks.size() << " checks, "
        << findings.size() << " failed";
    for (const auto& finding : findings) out << "\n  " << finding.check << ": " << finding.message;
    return out.str();
  }
};

namespace detail {

// Runs one named check, turning any exception into a finding: a Radial error that the check did
// not expect, or -- worse -- a foreign exception escaping a plugin.
class Runner {
 public:
  explicit Runner(Report& report) : report_(report) {}

  void run(const std::string& check, const std::function<void()>& body) {
    report_.checks.push_back(check);
    try {
      body();
    } catch (const Error& error) {
      fail(check, std::string("unexpected Radial error: ") + error.what());
    } catch (const std::exception& error) {
      fail(check, std::string("a non-Radial exception escaped the plugin (only radial::Error "
                              "types may cross the library boundary): ") +
                      error.what());
    } catch (...) {
      fail(check, "a non-standard exception escaped the plugin");
    }
  }
  void fail(const std::string& check, const std::string& message) {
    report_.findings.push_back({check, message});
  }

 private:
  Report& report_;
};

// How `body` ended, when a Radial error is the right answer.
enum class Outcome { Returned, RadialError, OtherException };

inline Outcome outcome_of(const std::function<void()>& body, std::string* what = nullptr) {
  try {
    body();
    return Outcome::Returned;
  } catch (const Error& error) {
    if (what) *what = error.what();
    return Outcome::RadialError;
  } catch (const std::exception& error) {
    if (what) *what = error.what();
    return Outcome::OtherException;
  } catch (...) {
    if (what) *what = "a non-standard exception";
    return Outcome::OtherException;
  }
}

// Two overlapping Gaussian classes, means -1 and +1 on every feature, unit variance.
inline Dataset two_classes(std::size_t rows_per_class, std::size_t features, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Dataset data;
  const std::size_t n = 2 * rows_per_class;
  data.inputs = Matrix::from_shape({n, features});
  data.classes = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = static_cast<std::int64_t>(i % 2);
    data.classes(i) = k;
    for (std::size_t j = 0; j < features; ++j) {
      data.inputs(i, j) = (k == 0 ? -1.0 : 1.0) + normal(rng);
    }
  }
  data.task = Task::Classification;
  data.num_classes = 2;
  data.class_values = {0.0, 1.0};
  for (std::size_t j = 0; j < features; ++j)
    data.feature_names.push_back("x" + std::to_string(j + 1));
  data.target_name = "class";
  data.source = "conformance data";
  return data;
}

// Six centres on training points, three per class, with spherical unit variances, owner
// classes, mixing weights pi_jk = 1/3 for the owner class and equal class priors: enough
// structure for every output layer, including the Bayes posterior.
inline Centres class_centres(const Dataset& data) {
  const std::size_t per_class = 3, k_classes = 2, m = per_class * k_classes;
  Centres centres;
  centres.means = Matrix::from_shape({m, data.features()});
  centres.owner = Labels::from_shape({m});
  centres.mixing = Matrix::from_shape({m, k_classes});
  centres.mixing.fill(0.0);
  for (std::size_t j = 0; j < m; ++j) {
    const std::size_t row = j;  // rows alternate classes 0, 1, 0, 1, ...
    const std::int64_t k = data.classes(row);
    for (std::size_t f = 0; f < data.features(); ++f) centres.means(j, f) = data.inputs(row, f);
    centres.owner(j) = k;
    centres.mixing(j, static_cast<std::size_t>(k)) = 1.0 / per_class;
  }
  centres.shape = Shape::Spherical;
  centres.variances = Vector::from_shape({m});
  centres.variances.fill(1.0);
  centres.class_priors = Vector::from_shape({k_classes});
  centres.class_priors.fill(1.0 / k_classes);
  return centres;
}

// The kit's own basis for output layers: phi = exp(-r^2 / 2), positive, with a log map.
class UnitGaussian final : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (double& value : r2) value = std::exp(-0.5 * value);
  }
  bool has_log_map() const override { return true; }
  void log_map(Matrix& r2) const override {
    for (double& value : r2) value = -0.5 * value;
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

// Bit-for-bit equality of two arrays; an empty string when equal, else the first difference.
template <class A>
std::string difference(const A& a, const A& b, const std::string& name) {
  if (a.shape() != b.shape()) {
    std::ostringstream out;
    out << name << " shapes differ (" << a.dimension() << "-d, " << a.size() << " vs " << b.size()
        << " elements)";
    return out.str();
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = a.data()[i], y = b.data()[i];
    if (!(x == y)) {
      std::ostringstream out;
      out.precision(17);
      out << name << " differ at flat index " << i << ": " << x << " vs " << y;
      return out.str();
    }
  }
  return {};
}

inline std::string difference(const Centres& a, const Centres& b) {
  if (a.shape != b.shape) {
    return std::string("shape ") + to_string(a.shape) + " vs " + to_string(b.shape);
  }
  for (const std::string& d :
       {difference(a.means, b.means, "means"), difference(a.variances, b.variances, "variances"),
        difference(a.diagonal, b.diagonal, "diagonal"),
        difference(a.covariances, b.covariances, "covariances"),
        difference(a.mixing, b.mixing, "mixing"), difference(a.owner, b.owner, "owner"),
        difference(a.class_priors, b.class_priors, "class_priors")}) {
    if (!d.empty()) return d;
  }
  return {};
}

template <class A>
bool all_finite(const A& a) {
  return std::all_of(a.begin(), a.end(), [](double x) { return std::isfinite(x); });
}

// Values that violate `spec` by the smallest step: the bounds' neighbours, an unknown choice,
// a value of another type.
inline std::vector<ParamValue> violations(const ParamSpec& spec) {
  std::vector<ParamValue> out;
  const double inf = std::numeric_limits<double>::infinity();
  switch (spec.type) {
    case ParamType::Integer:
      if (spec.min) {
        const double m = *spec.min;
        const double below = spec.min_exclusive ? std::floor(m) : std::ceil(m) - 1;
        out.emplace_back(static_cast<std::int64_t>(below));
      }
      if (spec.max) out.emplace_back(static_cast<std::int64_t>(std::floor(*spec.max) + 1));
      out.emplace_back(std::string("not a number"));
      out.emplace_back(0.5);
      break;
    case ParamType::Real:
      if (spec.min)
        out.emplace_back(spec.min_exclusive ? *spec.min : std::nextafter(*spec.min, -inf));
      if (spec.max) out.emplace_back(std::nextafter(*spec.max, inf));
      out.emplace_back(std::string("not a number"));
      out.emplace_back(std::numeric_limits<double>::quiet_NaN());
      break;
    case ParamType::Boolean: out.emplace_back(std::string("yes")); break;
    case ParamType::Choice:
      out.emplace_back(std::string("no-such-choice"));
      out.emplace_back(true);
      break;
    case ParamType::String:
    case ParamType::Path: out.emplace_back(true); break;
  }
  return out;
}

inline void check_parameters(const ComponentInfo& info, const Options& options, Runner& runner,
                             Params& made_params) {
  const std::string where =
      std::string("conformance of ") + to_string(info.slot) + " plugin " + info.id;
  runner.run("parameters/declared", [&] {
    if (info.summary.empty()) runner.fail("parameters/declared", "ComponentInfo::summary is empty");
    if (info.version.empty()) runner.fail("parameters/declared", "ComponentInfo::version is empty");
    std::vector<std::string> names;
    for (const auto& spec : info.params) {
      const std::string label = "parameter '" + spec.name + "'";
      if (spec.name.empty()) runner.fail("parameters/declared", "a parameter has an empty name");
      if (std::find(names.begin(), names.end(), spec.name) != names.end()) {
        runner.fail("parameters/declared", label + " is declared twice");
      }
      names.push_back(spec.name);
      if (spec.doc.empty()) runner.fail("parameters/declared", label + " has an empty doc");
      if (spec.min && spec.max && *spec.min > *spec.max) {
        runner.fail("parameters/declared", label + " has min > max");
      }
      if (spec.type == ParamType::Choice && spec.choices.empty()) {
        runner.fail("parameters/declared", label + " is a choice with no choices");
      }
      if (!spec.required) {
        const std::string problem = spec.check(spec.default_value);
        if (!problem.empty()) {
          runner.fail("parameters/declared",
                      label + ": its default fails its own check: " + problem);
        }
      }
    }
  });

  runner.run("parameters/refused", [&] {
    const auto expect_refusal = [&](const std::string& name, const ParamValue& value) {
      auto given = options.params;
      given[name] = value;
      std::string what;
      const Outcome outcome = outcome_of(
          [&] {
            try {
              validate_params(info.params, given, where);
            } catch (const ParameterError&) {
              throw;
            } catch (const Error& error) {
              throw std::runtime_error(std::string("not a ParameterError: ") + error.what());
            }
          },
          &what);
      if (outcome == Outcome::Returned) {
        runner.fail("parameters/refused",
                    name + " = " + to_string(value) + " was accepted; its declared constraint is " +
                        (find_param(info.params, name)
                             ? find_param(info.params, name)->describe_constraint()
                             : std::string("none")));
      } else if (outcome == Outcome::OtherException) {
        runner.fail("parameters/refused", name + " = " + to_string(value) + ": " + what);
      }
    };
    for (const auto& spec : info.params) {
      for (const auto& value : violations(spec)) expect_refusal(spec.name, value);
    }
    expect_refusal("no-such-parameter", std::int64_t{1});
  });

  runner.run("parameters/defaults", [&] {
    for (const auto& spec : info.params) {
      if (spec.required && !options.params.count(spec.name)) {
        runner.fail("parameters/defaults",
                    "required parameter '" + spec.name +
                        "' has no value; give one in conformance::Options::params");
        return;
      }
    }
    made_params = validate_params(info.params, options.params, where);
  });
}

inline void check_basis(const Registry& registry, const ComponentInfo& info, const Params& params,
                        const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  const Centres given = class_centres(data);

  std::shared_ptr<Basis> first;
  Centres prepared;
  Matrix r2, phi;
  bool ready = false;
  runner.run("basis/make-and-map", [&] {
    first = registry.make_basis(info.id, params);
    prepared = given;
    FitContext ctx(options.seed);
    first->prepare(prepared, ctx);
    prepared.check();
    SquaredDistances(prepared, first->metric()).compute(data.inputs, r2);
    phi = r2;
    first->map(phi);
    if (phi.shape() != r2.shape()) {
      runner.fail("basis/make-and-map", "map() changed the shape of the block");
      return;
    }
    if (!all_finite(phi)) {
      runner.fail("basis/make-and-map", "map() produced non-finite values for finite distances");
    }
    ready = true;
  });
  if (!ready) return;

  runner.run("basis/prepare-twice", [&] {
    auto again = registry.make_basis(info.id, params);
    Centres once = given, twice = given;
    FitContext ctx1(options.seed), ctx2(options.seed);
    again->prepare(once, ctx1);
    again->prepare(twice, ctx2);
    const std::string centres_differ = difference(twice, prepared);
    if (!centres_differ.empty()) {
      runner.fail("basis/prepare-twice",
                  "preparing twice changed the centres from preparing once: " + centres_differ);
    }
    Matrix out = r2;
    again->map(out);
    const std::string d = difference(out, phi, "phi");
    if (!d.empty()) {
      runner.fail("basis/prepare-twice",
                  "a second instance prepared twice maps differently from the first: " + d);
    }
  });

  runner.run("basis/blocks", [&] {
    Matrix by_rows = r2;
    for (std::size_t i = 0; i < r2.shape(0); ++i) {
      Matrix row = Matrix::from_shape({1, r2.shape(1)});
      for (std::size_t j = 0; j < r2.shape(1); ++j) row(0, j) = r2(i, j);
      first->map(row);
      for (std::size_t j = 0; j < r2.shape(1); ++j) by_rows(i, j) = row(0, j);
    }
    // Vectorised kernels may round a block's tail differently by an ulp or two; anything more
    // means phi depends on the other rows of the block.
    for (std::size_t i = 0; i < phi.size(); ++i) {
      const double a = by_rows.data()[i], b = phi.data()[i];
      if (!(std::fabs(a - b) <= 1e-13 * std::max(1.0, std::fabs(b)))) {
        std::ostringstream out;
        out.precision(17);
        out << "mapping row by row differs from mapping the block at flat index " << i << ": " << a
            << " vs " << b;
        runner.fail("basis/blocks", out.str());
        return;
      }
    }
  });

  if (first->has_log_map()) {
    runner.run("basis/log-map", [&] {
      Matrix logs = r2;
      first->log_map(logs);
      for (std::size_t i = 0; i < phi.size(); ++i) {
        const double expected = std::log(phi.data()[i]);
        const double got = logs.data()[i];
        if (phi.data()[i] > 0 &&
            !(std::fabs(got - expected) <= 1e-10 * (1 + std::fabs(expected)))) {
          std::ostringstream out;
          out.precision(17);
          out << "log_map differs from log(map) at flat index " << i << ": " << got << " vs "
              << expected;
          runner.fail("basis/log-map", out.str());
          return;
        }
      }
    });
  }

  runner.run("basis/state-round-trip", [&] {
    const State state = first->state();
    const State restored =
        deserialize_state(serialize_state(state), "conformance state of " + info.id);
    auto loaded = registry.make_basis(info.id, params);
    loaded->load_state(restored);
    Matrix out = r2;
    loaded->map(out);
    const std::string d = difference(out, phi, "phi");
    if (!d.empty()) {
      runner.fail("basis/state-round-trip",
                  "a basis restored by load_state(deserialize_state(serialize_state(state()))) "
                  "maps differently: " +
                      d);
    }
  });

  runner.run("basis/empty-state-refused", [&] {
    if (first->state().empty()) return;  // nothing to restore, nothing to miss
    auto loaded = registry.make_basis(info.id, params);
    std::string what;
    const Outcome outcome = outcome_of([&] { loaded->load_state(State{}); }, &what);
    if (outcome == Outcome::Returned) {
      runner.fail("basis/empty-state-refused",
                  "load_state({}) was accepted although state() has entries; use state_get()");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("basis/empty-state-refused",
                  "load_state({}) threw a non-Radial exception: " + what);
    }
  });

  runner.run("basis/bad-centres", [&] {
    auto basis = registry.make_basis(info.id, params);
    Centres bad = given;
    bad.variances = Vector::from_shape({given.count() - 1});  // one variance short
    bad.variances.fill(1.0);
    std::string what;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          basis->prepare(bad, ctx);
          bad.check();  // a basis may rebuild the shapes; then they must be consistent
          Matrix out;
          SquaredDistances(bad, basis->metric()).compute(data.inputs, out);
          basis->map(out);
        },
        &what);
    if (outcome == Outcome::OtherException) {
      runner.fail("basis/bad-centres", "centres with " + std::to_string(given.count() - 1) +
                                           " variances for " + std::to_string(given.count()) +
                                           " centres gave a non-Radial exception: " + what);
    }
  });
}

inline void check_centre_learner(const Registry& registry, const ComponentInfo& info,
                                 const Params& params, const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  std::shared_ptr<CentreLearner> learner;
  Centres once;
  bool ready = false;
  runner.run("centres/fit", [&] {
    learner = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    once = learner->fit(data, nullptr, ctx);
    once.check();
    if (once.count() == 0) runner.fail("centres/fit", "no centres were returned");
    if (once.dim() != data.features()) {
      runner.fail("centres/fit", "centres have dimension " + std::to_string(once.dim()) +
                                     ", the data " + std::to_string(data.features()));
    }
    if (!all_finite(once.means)) runner.fail("centres/fit", "non-finite centre coordinates");
    ready = true;
  });
  if (!ready) return;

  runner.run("centres/fit-twice", [&] {
    FitContext ctx(options.seed);
    const Centres twice = learner->fit(data, nullptr, ctx);
    const std::string d = difference(twice, once);
    if (!d.empty()) {
      runner.fail("centres/fit-twice",
                  "fitting the same learner again with the same seed gave other centres: " + d);
    }
  });

  runner.run("centres/determinism", [&] {
    auto other = registry.make_centre_learner(info.id, params);
    FitContext ctx(options.seed);
    const Centres again = other->fit(data, nullptr, ctx);
    const std::string d = difference(again, once);
    if (!d.empty()) {
      runner.fail(
          "centres/determinism",
          "a second instance with the same seed gave other centres (use ctx.rng only): " + d);
    }
  });

  runner.run("centres/empty-data-refused", [&] {
    Dataset empty = data;
    empty.inputs = Matrix::from_shape({0, data.features()});
    empty.classes = Labels::from_shape({0});
    auto fresh = registry.make_centre_learner(info.id, params);
    std::string what;
    Centres from_empty;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          from_empty = fresh->fit(empty, nullptr, ctx);
        },
        &what);
    // Only a learner whose centres do not depend on the data (e.g. read from a file) may
    // return here, and then with the very centres it gives for real data.
    if (outcome == Outcome::Returned && !difference(from_empty, once).empty()) {
      runner.fail("centres/empty-data-refused",
                  "fit() on 0 rows returned centres (other than those fitted on the data); "
                  "throw radial::InputError");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("centres/empty-data-refused",
                  "fit() on 0 rows threw a non-Radial exception: " + what);
    }
  });
}

inline void check_output_layer(const Registry& registry, const ComponentInfo& info,
                               const Params& params, const Options& options, Runner& runner) {
  const Dataset data = two_classes(options.rows_per_class, options.features, options.seed);
  const Centres centres = class_centres(data);
  const UnitGaussian basis;
  const DesignMatrix design(data.inputs, centres, basis);
  const TrainingProblem problem{design, data, centres, basis};

  std::shared_ptr<OutputLayer> layer;
  OutputWeights once;
  bool ready = false;
  runner.run("output/fit", [&] {
    layer = registry.make_output_layer(info.id, params);
    FitContext ctx(options.seed);
    once = layer->fit(problem, nullptr, ctx);
    const PredictionRule* rule = find_prediction_rule(once.link.name());
    if (!rule) {
      runner.fail("output/fit", "link '" + once.link.name() + "' names no registered prediction "
                                "rule; register the plugin's rule (radial/sdk/prediction_rule.hpp)");
    } else if (once.weights.shape(0) != centres.count() + 1 || once.weights.shape(1) == 0) {
      runner.fail("output/fit", "weights are " + std::to_string(once.weights.shape(0)) + " x " +
                                    std::to_string(once.weights.shape(1)) + ", expected " +
                                    std::to_string(centres.count() + 1) + " x outputs");
    } else {
      const std::string problem = rule->check(once.weights, data.num_classes);
      if (!problem.empty())
        runner.fail("output/fit", "the " + once.link.name() + " rule refuses the weights: " +
                                      problem);
    }
    ready = true;
  });
  if (!ready) return;

  const auto compare = [&](const char* check, const OutputWeights& other, const char* what) {
    if (other.link != once.link) {
      runner.fail(check, std::string(what) + " gave link " + to_string(other.link) +
                             " instead of " + to_string(once.link));
    }
    const std::string d = difference(other.weights, once.weights, "weights");
    if (!d.empty()) runner.fail(check, std::string(what) + " gave other weights: " + d);
  };
  runner.run("output/fit-twice", [&] {
    FitContext ctx(options.seed);
    compare("output/fit-twice", layer->fit(problem, nullptr, ctx),
            "fitting the same layer again with the same seed");
  });
  runner.run("output/determinism", [&] {
    FitContext ctx(options.seed);
    compare("output/determinism",
            registry.make_output_layer(info.id, params)->fit(problem, nullptr, ctx),
            "a second instance with the same seed");
  });

  runner.run("output/row-mismatch-refused", [&] {
    // Targets for fewer rows than the design matrix has.
    std::vector<std::size_t> keep(data.rows() - 2);
    for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = i;
    const Dataset shorter = select_rows(data, keep);
    const TrainingProblem mismatched{design, shorter, centres, basis};
    auto fresh = registry.make_output_layer(info.id, params);
    std::string what;
    const Outcome outcome = outcome_of(
        [&] {
          FitContext ctx(options.seed);
          fresh->fit(mismatched, nullptr, ctx);
        },
        &what);
    if (outcome == Outcome::Returned) {
      runner.fail("output/row-mismatch-refused",
                  "fit() accepted a design matrix of " + std::to_string(design.rows()) +
                      " rows with targets for " + std::to_string(shorter.rows()) +
                      " rows; compare problem.design.rows() with problem.data.rows()");
    } else if (outcome == Outcome::OtherException) {
      runner.fail("output/row-mismatch-refused", "a non-Radial exception: " + what);
    }
  });
}

inline void check_weight_penalty(const Registry& registry, const ComponentInfo& info,
                                 const Params& params, const Options& options, Runner& runner) {
  // W: (M+1) x K = 4 x 2, away from zero so that |w|-like penalties are differentiable there.
  const std::size_t rows = 4, cols = 2, p_count = rows * cols;
  Matrix w = Matrix::from_shape({rows, cols});
  {
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> magnitude(0.3, 1.5);
    std::bernoulli_distribution sign(0.5);
    for (double& value : w) value = (sign(rng) ? 1.0 : -1.0) * magnitude(rng);
  }

  std::shared_ptr<WeightPenalty> reg;
  bool ready = false;
  runner.run("weight-penalty/make", [&] {
    reg = registry.make_weight_penalty(info.id, params);
    ready = true;
  });
  if (!ready) return;

  const auto gradient_at = [&](const Matrix& at) {
    Matrix g = Matrix::from_shape({rows, cols});
    g.fill(0.0);
    reg->add_gradient(at, g);
    return g;
  };
  const auto report_mismatch = [&](const char* check, const char* what, std::size_t index,
                                   double analytic, double numeric) {
    std::ostringstream out;
    out.precision(10);
    out << what << " at flat index " << index << ": analytic " << analytic
        << ", central finite difference " << numeric;
    runner.fail(check, out.str());
  };
  const auto close = [&](double analytic, double numeric) {
    return std::fabs(analytic - numeric) <= options.derivative_tolerance * (1 + std::fabs(numeric));
  };

  runner.run("weight-penalty/determinism", [&] {
    const double a = reg->penalty(w);
    const double b = registry.make_weight_penalty(info.id, params)->penalty(w);
    if (!std::isfinite(a)) runner.fail("weight-penalty/determinism", "penalty is not finite");
    if (!(a == b))
      runner.fail("weight-penalty/determinism", "two instances give different penalties");
  });

  runner.run("weight-penalty/gradient", [&] {
    const Matrix g = gradient_at(w);
    for (std::size_t p = 0; p < p_count; ++p) {
      const double h = 1e-6 * std::max(1.0, std::fabs(w.data()[p]));
      Matrix plus = w, minus = w;
      plus.data()[p] += h;
      minus.data()[p] -= h;
      const double numeric = (reg->penalty(plus) - reg->penalty(minus)) / (2 * h);
      if (!close(g.data()[p], numeric)) {
        report_mismatch("weight-penalty/gradient", "d penalty / dW", p, g.data()[p], numeric);
        return;
      }
    }
  });

  runner.run("weight-penalty/hessian", [&] {
    Matrix hessian = Matrix::from_shape({p_count, p_count});
    hessian.fill(0.0);
    reg->add_hessian(w, hessian);
    for (std::size_t q = 0; q < p_count; ++q) {
      const double h = 1e-5 * std::max(1.0, std::fabs(w.data()[q]));
      Matrix plus = w, minus = w;
      plus.data()[q] += h;
      minus.data()[q] -= h;
      const Matrix gp = gradient_at(plus), gm = gradient_at(minus);
      for (std::size_t p = 0; p < p_count; ++p) {
        const double numeric = (gp.data()[p] - gm.data()[p]) / (2 * h);
        if (!close(hessian(p, q), numeric)) {
          report_mismatch("weight-penalty/hessian", "d2 penalty / dW_p dW_q (p*P+q)",
                          p * p_count + q, hessian(p, q), numeric);
          return;
        }
      }
    }
  });

  runner.run("weight-penalty/adds", [&] {
    const Matrix g = gradient_at(w);
    Matrix from_ones = Matrix::from_shape({rows, cols});
    from_ones.fill(1.0);
    reg->add_gradient(w, from_ones);
    Matrix h0 = Matrix::from_shape({p_count, p_count}), h1 = h0;
    h0.fill(0.0);
    h1.fill(1.0);
    reg->add_hessian(w, h0);
    reg->add_hessian(w, h1);
    for (std::size_t p = 0; p < g.size(); ++p) {
      if (!(std::fabs(from_ones.data()[p] - 1.0 - g.data()[p]) <=
            1e-12 * (1 + std::fabs(g.data()[p])))) {
        runner.fail("weight-penalty/adds", "add_gradient overwrote the gradient instead of adding");
        return;
      }
    }
    for (std::size_t p = 0; p < h0.size(); ++p) {
      if (!(std::fabs(h1.data()[p] - 1.0 - h0.data()[p]) <=
            1e-12 * (1 + std::fabs(h0.data()[p])))) {
        runner.fail("weight-penalty/adds", "add_hessian overwrote the Hessian instead of adding");
        return;
      }
    }
  });

  runner.run("weight-penalty/bad-shapes-refused", [&] {
    std::string what;
    Matrix small_gradient = Matrix::from_shape({rows - 1, cols});
    small_gradient.fill(0.0);
    Outcome outcome = outcome_of([&] { reg->add_gradient(w, small_gradient); }, &what);
    if (outcome != Outcome::RadialError) {
      runner.fail(
          "weight-penalty/bad-shapes-refused",
          "add_gradient with a 3 x 2 gradient for 4 x 2 weights " +
              std::string(outcome == Outcome::Returned ? "was accepted"
                                                       : "threw a non-Radial exception: " + what) +
              "; throw radial::ShapeError");
    }
    Matrix small_hessian = Matrix::from_shape({p_count - 1, p_count - 1});
    small_hessian.fill(0.0);
    outcome = outcome_of([&] { reg->add_hessian(w, small_hessian); }, &what);
    if (outcome != Outcome::RadialError) {
      runner.fail(
          "weight-penalty/bad-shapes-refused",
          "add_hessian with a 7 x 7 Hessian for 4 x 2 weights " +
              std::string(outcome == Outcome::Returned ? "was accepted"
                                                       : "threw a non-Radial exception: " + what) +
              "; throw radial::ShapeError");
    }
  });
}

inline void check_kernel_prior(const Registry& registry, const ComponentInfo& info,
                               const Params& params, const Options& options, Runner& runner) {
  // M = 3 diagonal kernels in d = 2, K = 2 classes; kernel 2 has no class-1 part.
  const std::size_t m = 3, k = 2, d = 2;
  KernelPriorInput in;
  in.rows = 60;
  in.kernels.shape = Shape::Diagonal;
  in.kernels.means = Matrix::from_shape({m, d});
  in.kernels.diagonal = Matrix::from_shape({m, d});
  in.subkernel_means = Tensor3::from_shape({m, k, d});
  in.class_given_kernel = Matrix{{0.7, 0.3}, {0.4, 0.6}, {1.0, 0.0}};
  {
    std::mt19937_64 rng(options.seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0), var(0.5, 2.0);
    for (double& v : in.kernels.means) v = u(rng);
    for (double& v : in.kernels.diagonal) v = var(rng);
    for (double& v : in.subkernel_means) v = u(rng);
  }
  const auto finite = [](const auto& array) {
    for (double v : array)
      if (!std::isfinite(v)) return false;
    return true;
  };

  std::shared_ptr<KernelPrior> prior;
  bool ready = false;
  runner.run("kernel-prior/make", [&] {
    prior = registry.make_kernel_prior(info.id, params);
    ready = true;
  });
  if (!ready) return;

  runner.run("kernel-prior/determinism", [&] {
    const double a = prior->kernel_penalty(in);
    const double b = registry.make_kernel_prior(info.id, params)->kernel_penalty(in);
    if (!std::isfinite(a)) runner.fail("kernel-prior/determinism", "kernel_penalty is not finite");
    if (!(a == b))
      runner.fail("kernel-prior/determinism", "two instances give different kernel penalties");
  });

  runner.run("kernel-prior/distances", [&] {
    const Matrix distances = prior->kernel_distances(in);
    if (distances.dimension() != 2 || distances.shape(0) != m || distances.shape(1) != k) {
      runner.fail("kernel-prior/distances", "kernel_distances is not M x K = 3 x 2");
      return;
    }
    for (double v : distances) {
      if (!(std::isfinite(v) && v >= 0)) {
        runner.fail("kernel-prior/distances", "a distance D_jk is negative or not finite");
        return;
      }
    }
  });

  runner.run("kernel-prior/mean-terms-add", [&] {
    KernelMeanTerms zero = KernelMeanTerms::zeros(m, d), one = KernelMeanTerms::zeros(m, d);
    one.weight.fill(1.0);
    one.target.fill(1.0);
    prior->add_mean_terms(in, zero);
    prior->add_mean_terms(in, one);
    if (!finite(zero.weight) || !finite(zero.target)) {
      runner.fail("kernel-prior/mean-terms-add", "add_mean_terms gave non-finite terms");
      return;
    }
    for (double v : zero.weight) {
      if (!(v >= 0)) {
        runner.fail("kernel-prior/mean-terms-add", "a mean-term weight is negative");
        return;
      }
    }
    for (std::size_t j = 0; j < m; ++j) {
      if (!(std::fabs(one.weight(j) - 1.0 - zero.weight(j)) <= 1e-12 * (1 + zero.weight(j)))) {
        runner.fail("kernel-prior/mean-terms-add",
                    "add_mean_terms overwrote the weights instead of adding");
        return;
      }
    }
  });

  runner.run("kernel-prior/mixing-terms", [&] {
    Matrix zero = Matrix::from_shape({m, k}), one = Matrix::from_shape({m, k});
    zero.fill(0.0);
    one.fill(1.0);
    prior->add_mixing_terms(in, zero);
    prior->add_mixing_terms(in, one);
    if (!finite(zero)) {
      runner.fail("kernel-prior/mixing-terms", "add_mixing_terms gave non-finite terms");
      return;
    }
    for (std::size_t j = 0; j < m; ++j) {
      double sum = 0, scale = 0;
      for (std::size_t c = 0; c < k; ++c) {
        sum += zero(j, c);
        scale += std::fabs(zero(j, c));
        if (!(std::fabs(one(j, c) - 1.0 - zero(j, c)) <= 1e-12 * (1 + std::fabs(zero(j, c))))) {
          runner.fail("kernel-prior/mixing-terms",
                      "add_mixing_terms overwrote the terms instead of adding");
          return;
        }
      }
      if (!(std::fabs(sum) <= 1e-9 * (1 + scale))) {
        runner.fail("kernel-prior/mixing-terms",
                    "the mixing terms of kernel " + std::to_string(j) +
                        " do not sum to 0 over the classes (eq 31)");
        return;
      }
    }
  });
}

}  // namespace detail

// Every check for the component `id`, in whichever slot it is registered. Never throws for a
// plugin's failures: they are findings. Throws InputError only when `id` is not registered.
inline Report run_checks(const Registry& registry, const std::string& id,
                         const Options& options = {}) {
  const ComponentInfo* info = nullptr;
  for (const ComponentInfo* candidate : registry.components()) {
    if (candidate->id == id) info = candidate;
  }
  if (!info) {
    std::vector<std::string> ids;
    for (const ComponentInfo* candidate : registry.components()) ids.push_back(candidate->id);
    const std::string guess = did_you_mean(id, ids);
    throw InputError("conformance: no plugin '" + id + "' is registered" +
                     (guess.empty() ? std::string() : " (did you mean '" + guess + "'?)"));
  }
  Report report;
  report.id = id;
  report.slot = info->slot;
  detail::Runner runner(report);
  Params params;
  detail::check_parameters(*info, options, runner, params);
  if (report.failed("parameters/defaults")) return report;
  switch (info->slot) {
    case Slot::Basis: detail::check_basis(registry, *info, params, options, runner); break;
    case Slot::Centres:
      detail::check_centre_learner(registry, *info, params, options, runner);
      break;
    case Slot::Output: detail::check_output_layer(registry, *info, params, options, runner); break;
    case Slot::WeightPenalty:
      detail::check_weight_penalty(registry, *info, params, options, runner);
      break;
    case Slot::KernelPrior:
      detail::check_kernel_prior(registry, *info, params, options, runner);
      break;
  }
  return report;
}

// Catch2 front end: one failed check per finding, labelled with the plugin and the check.
inline void check_plugin(const Registry& registry, const std::string& id,
                         const Options& options = {}) {
  const Report report = run_checks(registry, id, options);
  INFO(report.str());
  for (const auto& finding : report.findings) {
    FAIL_CHECK(to_string(report.slot) << " plugin '" << report.id << "' fails " << finding.check
                                      << ": " << finding.message);
  }
  CHECK(report.ok());
}

}  // namespace radial::conformance
