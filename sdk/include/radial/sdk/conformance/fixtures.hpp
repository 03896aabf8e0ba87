#pragma once
// The conformance kit's runner, generated data, reference components and the parameter checks
// every slot shares.

#include "radial/sdk/conformance/report.hpp"

namespace radial::conformance {
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
      if (spec.max) {
        const double m = *spec.max;
        const double above = spec.max_exclusive ? std::ceil(m) : std::floor(m) + 1;
        out.emplace_back(static_cast<std::int64_t>(above));
      }
      out.emplace_back(std::string("not a number"));
      out.emplace_back(0.5);
      break;
    case ParamType::Real:
      if (spec.min)
        out.emplace_back(spec.min_exclusive ? *spec.min : std::nextafter(*spec.min, -inf));
      if (spec.max)
        out.emplace_back(spec.max_exclusive ? *spec.max : std::nextafter(*spec.max, inf));
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
    for (const auto& problem : check_param_table(info.params)) {
      runner.fail("parameters/declared", problem);
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

}  // namespace detail
}  // namespace radial::conformance
