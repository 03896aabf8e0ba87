#pragma once
// Width rules: how a basis of Mahalanobis distances (Metric::Shape) sets the shape S_j of each
// centre. Shared by every such basis, so a rule is written once and reads the same parameters
// (`width_rule`, `width_scale`, `width_p`, `width`) everywhere.
//
// A learned shape (k-means spread, EM covariance) is a density's covariance. As an activation
// width exp(-r^2/2) it is too narrow in d dimensions: a member of its own cluster sits at
// r^2 ~ d, so its activation is about e^(-d/2). The inter-centre rules scale with the distances
// between centres, which grow with d, and so suit activations in any dimension.

#include <cstddef>
#include <string>

#include "radial/core/centres.hpp"
#include "radial/core/fit_context.hpp"
#include "radial/core/option_table.hpp"
#include "radial/core/params.hpp"

namespace radial {

enum class WidthRule {
  Auto,         // density bases: Shapes; activation bases: Nearest
  Shapes,       // the centre learner's shapes as they are (density mode, Bayes, DEM, PRBF)
  MaxDistance,  // NETLAB rbfsetfw(net, 0): sigma^2 = scale * max_ij ||c_i - c_j||^2
  Nearest,      // NETLAB rbfsetfw(net, scale): sigma^2 = scale * mean_j min_i ||c_i - c_j||^2
  PNearest,  // Moody & Darken 1989: sigma_j^2 = scale * (1/p) sum of the p nearest ||c_j - c_i||^2
  ScaledShapes,  // S_j * scale (scale = d makes a learned variance a cluster's whole spread)
  Fixed,         // sigma = width for every centre
};

const char* to_string(WidthRule rule);

struct WidthSpec {
  WidthRule rule = WidthRule::Auto;
  double scale = 1.0;  // multiplies the rule's variance; "choose" leaves it at 1 until chosen
  bool choose_scale = true;  // the trainer selects the scale (width_scale = "choose")
  std::size_t p = 2;  // PNearest
  double width = 0;   // Fixed: sigma (> 0)
};

// The parameters every shape basis declares (width, width_rule, width_scale, width_p), bound
// to WidthSpec, whose defaults they take (`width_scale` "choose": the trainer selects it,
// framework/src/training/selection.hpp). Reading them, `width > 0` means Fixed whatever
// width_rule says (a given width is used as it is); ParameterError naming `component` for
// width_rule = "fixed" without a width, or width^2 that is not a normal double.
OptionTable<WidthSpec> width_table(const std::string& component);
ParamTable width_param_table();
WidthSpec width_spec(const Params& params, const std::string& component);

// The rule Auto stands for in a basis of this kind.
WidthRule resolve_rule(WidthRule rule, bool density);

// True when the trainer may choose the scale of `spec` in a basis of this kind: the scale is
// "choose" and the rule it resolves to uses one (not shapes or fixed). A basis's
// Basis::width_scale_selectable() and its Capabilities::width_scale_selectable.
bool width_scale_choosable(const WidthSpec& spec, bool density);

// What apply_width_rule() did, kept in the basis state for the record.
struct WidthResult {
  WidthRule rule = WidthRule::Shapes;
  double scale = 1.0;
  double common_variance =
      0;  // one variance for every centre (MaxDistance, Nearest, Fixed), else 0
};

// Sets centres' shapes by the (resolved) rule. Shapes and ScaledShapes need shapes (from the
// centre learner); a shapeless set falls back to MaxDistance with the guard "no-shapes". Rules
// of inter-centre distances with fewer than two distinct centres use variance `scale` (guard
// "zero-width"). Warnings go to ctx, under the component it is fitting.
WidthResult apply_width_rule(Centres& centres, const WidthSpec& spec, bool density,
                             FitContext& ctx);

}  // namespace radial
