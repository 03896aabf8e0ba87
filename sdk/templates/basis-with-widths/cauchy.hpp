#pragma once
// The Cauchy (inverse quadratic) basis phi = 1 / (1 + r^2) on Mahalanobis distances
// r_j^2 = (x - c_j)^T S_j^{-1} (x - c_j): a basis with widths. The shapes S_j are set in
// prepare() by the framework's width rules (radial/network/width_rule.hpp), which every basis of
// Mahalanobis distances shares: NETLAB's inter-centre rules, Moody-Darken p-nearest, the
// learned shapes scaled, or a fixed width; the scale they multiply by may be left to the
// trainer (width_scale = "choose", closed-form leave-one-out).

#include <string>

#include <radial/network/basis.hpp>
#include <radial/core/option_table.hpp>
#include <radial/sdk/configured.hpp>
#include <radial/network/width_rule.hpp>

namespace cauchy_plugin {

struct CauchyOptions {
  // width, width_rule, width_scale, width_p: declared by radial::width_table, whose defaults
  // (the nearest-centre rule, a scale the trainer chooses) are these.
  radial::WidthSpec width;
};

// The parameters: the framework's width parameters, included, so they read and validate as
// every shape basis's do (ParameterError for width_rule = "fixed" without a width).
radial::OptionTable<CauchyOptions> cauchy_table();

class CauchyBasis final : public radial::sdk::Configured<radial::Basis, CauchyOptions> {
 public:
  using Configured::Configured;

  // Mahalanobis distances under the shapes prepare() sets.
  radial::Metric metric() const override { return radial::Metric::Shape; }
  // The width rule, applied to the centres (radial::apply_width_rule): it sets their shapes,
  // which the model saves with the centres; warnings (no shapes to scale, zero widths) go to
  // ctx under this plugin's id.
  void prepare(radial::Centres& centres, radial::FitContext& ctx) override;
  void map(radial::Matrix& r2) const override;
  // True when the rule multiplies by a scale the trainer may choose: not for the learned
  // shapes as they are, nor a fixed width.
  bool width_scale_selectable() const override;
  // dphi/d(r^2) = -1 / (1 + r^2)^2 = -phi^2: what [refine] descends along; the conformance
  // kit checks it against central differences.
  bool differentiable() const override { return true; }
  void map_derivative(const radial::Matrix& r2, const radial::Matrix& phi,
                      radial::Matrix& dphi) const override;
  // phi depends on the shapes only through r^2, so [refine] may train them.
  bool shapes_trainable() const override { return true; }
  // The rule prepare() applied, for the record (the shapes themselves live in the centres).
  radial::State state() const override;
  void load_state(const radial::State& state) override;

 private:
  std::string rule_applied_;
};

}  // namespace cauchy_plugin
