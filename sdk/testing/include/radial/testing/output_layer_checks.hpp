#pragma once
// Checks shared by the tests of the iterative GLM output layers (irls, bfgs, scg): maximum-
// likelihood outputs on a saturated design (one indicator per group plus the bias), where the
// closed form is known: the fitted probabilities are the class frequencies within each group,
// and linear outputs are the group means of the targets. Each test passes its own trainer, or
// (check_layer_group_means) its OutputLayer, as an out-of-tree least-squares layer can.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/network/design_matrix.hpp"
#include "radial/core/errors.hpp"
#include "radial/glm/objective.hpp"
#include "radial/network/output_layer.hpp"
#include "radial/plugin/loader.hpp"
#include "radial/testing/registry.hpp"

namespace radial::testing {

// Rows of three groups; counts[g][k] rows of class k in group g.
struct Grouped {
  Matrix phi;
  Dataset data;
  std::vector<std::vector<double>> counts;
};

inline Grouped grouped(const std::vector<std::vector<double>>& counts) {
  Grouped g;
  g.counts = counts;
  std::vector<std::size_t> group, label;
  for (std::size_t a = 0; a < counts.size(); ++a)
    for (std::size_t k = 0; k < counts[a].size(); ++k)
      for (int i = 0; i < int(counts[a][k]); ++i) {
        group.push_back(a);
        label.push_back(k);
      }
  const std::size_t n = group.size();
  g.phi = xt::zeros<double>({n, std::size_t(3)});
  g.data.inputs = xt::zeros<double>({n, std::size_t(1)});
  g.data.classes = xt::zeros<std::int64_t>({n});
  g.data.num_classes = counts[0].size();
  for (std::size_t i = 0; i < n; ++i) {
    if (group[i] > 0) g.phi(i, group[i] - 1) = 1.0;  // indicators of groups 1 and 2
    g.phi(i, 2) = 1.0;                               // bias
    g.data.inputs(i, 0) = double(group[i]);
    g.data.classes(i) = std::int64_t(label[i]);
  }
  return g;
}

// Trains the output weights of `objective` with the layer under test.
using OutputFit = std::function<Matrix(glm::Objective&, FitContext&)>;

// Logistic (2 classes) and softmax (3 classes): probabilities are the group class frequencies
// and the final error is the saturated cross-entropy.
inline void check_saturated_frequencies(const OutputFit& fit) {
  const std::vector<std::vector<std::vector<double>>> cases = {
      {{6, 14}, {15, 5}, {9, 11}},            // 2 classes: logistic
      {{6, 10, 4}, {12, 4, 4}, {5, 5, 10}}};  // 3 classes: softmax
  for (const auto& counts : cases) {
    const Grouped g = grouped(counts);
    const std::size_t k = counts[0].size();
    const Link link = k == 2 ? Link::Logistic : Link::Softmax;
    glm::Objective objective(g.phi, targets_for(link, g.data), link);
    FitContext ctx(1);
    const Matrix w = fit(objective, ctx);
    CHECK(ctx.report.converged());
    const Matrix y = objective.outputs_at(w);
    std::size_t row = 0;
    double expected_error = 0;
    for (std::size_t a = 0; a < counts.size(); ++a) {
      double total = 0;
      for (double c : counts[a]) total += c;
      for (std::size_t c = 0; c < k; ++c) expected_error -= counts[a][c] * std::log(counts[a][c] / total);
      const double p1 = counts[a][1] / total;
      if (link == Link::Logistic) {
        CHECK(y(row, 0) == Approx(p1).margin(1e-5));
      } else {
        for (std::size_t c = 0; c < k; ++c) CHECK(y(row, c) == Approx(counts[a][c] / total).margin(1e-5));
      }
      row += std::size_t(total);
    }
    CHECK(ctx.report.final_error == Approx(expected_error).epsilon(1e-8));
    CHECK(ctx.report.curve.size() >= 1);
  }
}

// Identity link: least squares on indicators gives the group means of the one-hot targets.
inline void check_linear_group_means(const OutputFit& fit) {
  const Grouped g = grouped({{6, 14}, {15, 5}, {9, 11}});
  glm::Objective objective(g.phi, targets_for(Link::Identity, g.data), Link::Identity);
  FitContext ctx(1);
  const Matrix w = fit(objective, ctx);
  const Matrix y = objective.outputs_at(w);
  // Group 0: 14 of 20 in class 1 -> outputs (0.3, 0.7).
  CHECK(y(0, 0) == Approx(0.3).margin(1e-5));
  CHECK(y(0, 1) == Approx(0.7).margin(1e-5));
  CHECK(y(20, 1) == Approx(0.25).margin(1e-5));
}

// phi = 1 at distance 0, else 0: on the group numbers 0, 1, 2 as inputs, with centres at 1 and 2,
// the design [phi, 1] is grouped()'s indicators and bias.
class GroupIndicatorBasis final : public Basis {
 public:
  Metric metric() const override { return Metric::Euclidean; }
  void prepare(Centres&, FitContext&) override {}
  void map(Matrix& r2) const override {
    for (double& v : r2) v = v < 0.5 ? 1.0 : 0.0;  // squared distances are 0, 1 or 4
  }
  State state() const override { return {}; }
  void load_state(const State&) override {}
};

// An output layer with linear outputs, through the OutputLayer interface (design matrix,
// dataset, no penalty): as check_linear_group_means, its outputs are the group means of the
// one-hot targets.
inline void check_layer_group_means(OutputLayer& layer) {
  const Grouped g = grouped({{6, 14}, {15, 5}, {9, 11}});
  Centres centres;
  centres.means = {{1.0}, {2.0}};
  const GroupIndicatorBasis basis;
  const DesignMatrix design(g.data.inputs, centres, basis);
  const bool indicators_and_bias = design.materialise() == g.phi;
  REQUIRE(indicators_and_bias);
  FitContext ctx(1);
  const OutputWeights w = layer.fit(TrainingProblem{design, g.data, centres, basis}, nullptr, ctx);
  REQUIRE(w.weights.shape(0) == 3);
  REQUIRE(w.weights.shape(1) == 2);
  CHECK(ctx.report.converged());
  // Rows 0, 20 and 40 start the three groups: 14 of 20, 5 of 20 and 11 of 20 in class 1.
  for (const auto& [row, p1] : {std::pair{0, 0.7}, std::pair{20, 0.25}, std::pair{40, 0.55}}) {
    for (std::size_t k = 0; k < 2; ++k) {
      double y = 0;
      for (std::size_t j = 0; j < 3; ++j) y += g.phi(std::size_t(row), j) * w.weights(j, k);
      CHECK(y == Approx(k == 1 ? p1 : 1.0 - p1).margin(1e-8));
    }
  }
}

// The GLM trainers' common parameter table, read through the registry from the build's plugins.
inline void check_glm_output_registration(const std::string& id) {
  const Registry& registry = shipped_registry();
  const auto& info = registry.require(Slot::Output, id);
  for (const char* name : {"link", "iterations", "tolerance"}) CHECK(find_param(info.params, name));
  const Params p = validate_params(info.params, {}, "test");
  CHECK(p.string("link") == "auto");
  CHECK(p.real("tolerance") == 1e-4);
  CHECK(registry.make_output_layer(id, p) != nullptr);
  CHECK_THROWS_AS(validate_params(info.params, {{"link", std::string("probit")}}, "test"),
                  ParameterError);
}

// All of the above for the GLM trainer `id`, whose training function `fit` wraps, one section
// each.
inline void check_glm_trainer(const std::string& id, const OutputFit& fit) {
  SECTION("fitted probabilities are the class frequencies of a saturated design") {
    check_saturated_frequencies(fit);
  }
  SECTION("linear outputs give the group means (least squares)") { check_linear_group_means(fit); }
  SECTION("registered with its parameter table") { check_glm_output_registration(id); }
}

}  // namespace radial::testing
