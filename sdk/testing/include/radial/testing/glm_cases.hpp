#pragma once
// The cases the GLM output trainers (irls, scg, bfgs) are checked on, shared by their plugins'
// tests: a numeric CSV reader, standardisation, design matrices built directly from centres and
// widths (NETLAB's basis forms, so the tests do not depend on the basis or centre plugins),
// NETLAB's runs on synth3 (tests/data/netlab), scikit-learn's LogisticRegression
// (tests/reference/sklearn_logistic.json) and separable classes.

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "radial/core/dataset.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/glm/objective.hpp"
#include "radial/glm/training.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/paths.hpp"
#include "radial/testing/registry.hpp"
#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace glm_test {

using radial::Matrix;

// All numeric cells of a CSV file; `header` skips the first line.
inline Matrix read_csv(const std::filesystem::path& file, bool header) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot open " + file.string());
  std::string line;
  std::vector<double> values;
  std::size_t rows = 0, cols = 0;
  if (header) std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::stringstream ss(line);
    std::string cell;
    std::size_t n = 0;
    while (std::getline(ss, cell, ',')) {
      values.push_back(std::stod(cell));
      ++n;
    }
    if (rows == 0) cols = n;
    if (n != cols) throw std::runtime_error(file.string() + ": ragged row " + std::to_string(rows));
    ++rows;
  }
  Matrix m = xt::zeros<double>({rows, cols});
  std::copy(values.begin(), values.end(), m.data());
  return m;
}

inline std::filesystem::path example_data(const std::string& name) {
  return radial::testing::source_dir() / "docs" / "examples" / "data" / name;
}

// A classification data set from a CSV whose last column is the class index.
inline radial::Dataset read_classes(const std::filesystem::path& file, bool standardise) {
  const Matrix raw = read_csv(file, true);
  const std::size_t n = raw.shape(0), d = raw.shape(1) - 1;
  radial::Dataset data;
  data.source = file.filename().string();
  data.inputs = xt::zeros<double>({n, d});
  data.classes = xt::zeros<std::int64_t>({n});
  std::int64_t kmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) data.inputs(i, j) = raw(i, j);
    data.classes(i) = std::int64_t(raw(i, d));
    kmax = std::max(kmax, data.classes(i));
  }
  data.num_classes = std::size_t(kmax + 1);
  for (std::size_t k = 0; k < data.num_classes; ++k) data.class_values.push_back(double(k));
  if (standardise) {
    for (std::size_t j = 0; j < d; ++j) {
      double mean = 0, var = 0;
      for (std::size_t i = 0; i < n; ++i) mean += data.inputs(i, j);
      mean /= double(n);
      for (std::size_t i = 0; i < n; ++i) var += std::pow(data.inputs(i, j) - mean, 2);
      const double sd = std::sqrt(var / double(n));  // population s.d., as numpy's std()
      for (std::size_t i = 0; i < n; ++i) data.inputs(i, j) = (data.inputs(i, j) - mean) / sd;
    }
  }
  return data;
}

// [X, 1]: the inputs themselves as basis outputs (plain logistic regression).
inline Matrix with_bias(const Matrix& x) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  Matrix phi = xt::ones<double>({n, d + 1});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j) phi(i, j) = x(i, j);
  return phi;
}

inline double squared_distance(const Matrix& x, std::size_t i, const Matrix& c, std::size_t j) {
  double r2 = 0;
  for (std::size_t k = 0; k < x.shape(1); ++k) r2 += std::pow(x(i, k) - c(j, k), 2);
  return r2;
}

// NETLAB's Gaussian basis exp(-r^2 / (2 w_j)), w_j a variance; bias column last.
inline Matrix gaussian_design(const Matrix& x, const Matrix& centres, const Matrix& widths) {
  const std::size_t n = x.shape(0), m = centres.shape(0);
  Matrix phi = xt::ones<double>({n, m + 1});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j)
      phi(i, j) = std::exp(-squared_distance(x, i, centres, j) / (2 * widths.data()[j]));
  return phi;
}

// NETLAB's thin-plate basis r^2 log(r^2) (0 at r = 0); bias column last.
inline Matrix thin_plate_design(const Matrix& x, const Matrix& centres) {
  const std::size_t n = x.shape(0), m = centres.shape(0);
  Matrix phi = xt::ones<double>({n, m + 1});
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      const double r2 = squared_distance(x, i, centres, j);
      phi(i, j) = r2 > 0 ? r2 * std::log(r2) : 0.0;
    }
  return phi;
}

// Targets column of 0/1 labels (logistic) from a data set.
inline Matrix label_column(const radial::Dataset& data) {
  Matrix t = xt::zeros<double>({data.rows(), std::size_t(1)});
  for (std::size_t i = 0; i < data.rows(); ++i) t(i, 0) = data.classes(i) == 1 ? 1.0 : 0.0;
  return t;
}

inline double max_abs_of(const radial::Matrix& m) {
  double v = 0;
  for (double x : m) v = std::max(v, std::fabs(x));
  return v;
}

inline double max_difference(const Matrix& a, const Matrix& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(a.data()[i] - b.data()[i]));
  return d;
}

// NETLAB 3.3 on synth3 with its own centres and widths (tests/data/netlab, README there): the
// design, the 0/1 targets and the figures of results.csv (train_err column), read rather than
// pasted.
struct NetlabCase {
  std::string folder;
  Matrix phi, targets;
  double pinv_half_sse = 0, irls_error = 0, quasinew_error = 0, scg_error = 0;
  std::size_t irls_iterations = 0;
  Matrix irls_weights;
};

inline NetlabCase load_netlab_case(const std::string& folder, bool gaussian) {
  NetlabCase c;
  c.folder = folder;
  const auto dir = radial::testing::test_data("netlab") / folder;
  const radial::Dataset data = read_classes(example_data("synth3_train.csv"), false);
  const Matrix centres = read_csv(dir / "centres.csv", false);
  c.phi = gaussian ? gaussian_design(data.inputs, centres, read_csv(dir / "widths.csv", false))
                   : thin_plate_design(data.inputs, centres);
  c.targets = label_column(data);
  std::ifstream in(dir / "results.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string step, err, cell;
    std::getline(ss, step, ',');
    std::getline(ss, err, ',');
    std::vector<std::string> rest;
    while (std::getline(ss, cell, ',')) rest.push_back(cell);
    if (step == "pinv") c.pinv_half_sse = std::stod(err);
    if (step == "irls") {
      c.irls_error = std::stod(err);
      c.irls_iterations = std::size_t(std::stod(rest.at(3)));  // iters column
    }
    if (step == "quasinew") c.quasinew_error = std::stod(err);
    if (step == "scg") c.scg_error = std::stod(err);
  }
  c.irls_weights = read_csv(dir / "weights_irls.csv", false);
  return c;
}

// The two NETLAB cases: Gaussian (true) and thin-plate (false).
inline const char* netlab_folder(bool gaussian) {
  return gaussian ? "gauss_s1_nh10_seed1" : "tps_nh10_seed1";
}

// check(c, gaussian) on each NETLAB case, loaded, named in the test's output and checked to have
// been read: the trainers' tests compare with the same two networks.
template <class Check>
void for_each_netlab_case(const Check& check) {
  for (const bool gaussian : {true, false}) {
    const NetlabCase c = load_netlab_case(netlab_folder(gaussian), gaussian);
    INFO(c.folder);
    REQUIRE(c.irls_error > 60);  // the reference figures were read
    check(c, gaussian);
  }
}

// scikit-learn's LogisticRegression on breast_cancer and wine (tests/reference/
// sklearn_logistic.py): the penalised objective, coefficients and first rows' probabilities.
inline nlohmann::json sklearn_logistic() {
  std::ifstream in(radial::testing::source_dir() / "tests" / "reference" /
                   "sklearn_logistic.json");
  return nlohmann::json::parse(in);
}

// The weight-decay plugin through the registry, alpha/2 ||w||^2 without the bias.
inline std::shared_ptr<radial::WeightPenalty> weight_decay(const radial::Registry& registry,
                                                           double alpha) {
  const auto& info = registry.require(radial::Slot::WeightPenalty, "weight-decay");
  return registry.make_weight_penalty(
      "weight-decay", radial::validate_params(info.params, {{"alpha", alpha}}, "test"));
}

inline bool has_warning(const radial::FitContext& ctx, const std::string& guard) {
  for (const auto& w : ctx.report.warnings)
    if (w.guard == guard) return true;
  return false;
}

// Well separated classes on a circle (2 on a line, 3 on a plane): the likelihood has no
// maximum.
inline radial::Dataset separable(std::size_t classes) {
  radial::Dataset data;
  const std::size_t per = 20, n = per * classes;
  data.inputs = xt::zeros<double>({n, std::size_t(2)});
  data.classes = xt::zeros<std::int64_t>({n});
  data.num_classes = classes;
  for (std::size_t c = 0; c < classes; ++c)
    for (std::size_t i = 0; i < per; ++i) {
      const double angle = 2 * M_PI * double(c) / double(classes);
      data.inputs(c * per + i, 0) = 3 * std::cos(angle) + 0.05 * double(i % 5);
      data.inputs(c * per + i, 1) = 3 * std::sin(angle) + 0.05 * double(i / 5);
      data.classes(c * per + i) = std::int64_t(c);
    }
  return data;
}

// `fit(objective, ctx)` (a GLM trainer) on scikit-learn's two cases with the matched weight
// decay (breast cancer: logistic; wine: softmax; standardised inputs and a bias column);
// returns, per case, the trainer's final error over scikit-learn's objective and whether it
// reported convergence.
template <class Fit>
std::vector<std::pair<double, bool>> error_over_sklearn(Fit fit) {
  const auto ref = sklearn_logistic();
  const auto decay =
      weight_decay(radial::testing::shipped_registry(), ref.at("alpha").get<double>());
  std::vector<std::pair<double, bool>> ratios;
  for (const std::string name : {"breast_cancer.csv", "wine.csv"}) {
    const radial::Dataset data = read_classes(example_data(name), true);
    const radial::Link link = data.num_classes == 2 ? radial::Link::Logistic : radial::Link::Softmax;
    radial::glm::Objective obj(with_bias(data.inputs), radial::targets_for(link, data), link,
                               decay.get());
    radial::FitContext ctx(1);
    fit(obj, ctx);
    ratios.emplace_back(ctx.report.final_error /
                            ref.at("cases").at(name).at("objective").get<double>(),
                        ctx.report.converged());
  }
  return ratios;
}

// `fit(objective, ctx)` on separable classes (2 and 3) without a penalty: the weights and the
// error stay finite.
template <class Fit>
void check_finite_on_separable(Fit fit) {
  for (const std::size_t classes : {std::size_t(2), std::size_t(3)}) {
    INFO(classes << " classes");
    const radial::Dataset data = separable(classes);
    const radial::Link link = classes == 2 ? radial::Link::Logistic : radial::Link::Softmax;
    radial::glm::Objective obj(with_bias(data.inputs), radial::targets_for(link, data), link);
    radial::FitContext ctx(1);
    const Matrix w = fit(obj, ctx);
    CHECK(radial::glm::all_finite(w));
    CHECK(std::isfinite(ctx.report.final_error));
  }
}

}  // namespace glm_test
