// Width rules shared by the shape bases (radial/network/width_rule.hpp).
#include "radial/network/width_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace {

struct RuleName {
  WidthRule rule;
  const char* name;
};

constexpr RuleName rule_names[] = {
    {WidthRule::Auto, "auto"},
    {WidthRule::Shapes, "shapes"},
    {WidthRule::MaxDistance, "max-distance"},
    {WidthRule::Nearest, "nearest"},
    {WidthRule::PNearest, "p-nearest"},
    {WidthRule::ScaledShapes, "scaled-shapes"},
    {WidthRule::Fixed, "fixed"},
};

void set_spherical(Centres& centres, const Vector& variances) {
  centres.shape = Shape::Spherical;
  centres.variances = variances;
  centres.diagonal = Matrix();
  centres.covariances = Tensor3();
}

void set_common(Centres& centres, double variance) {
  Vector v = Vector::from_shape({centres.count()});
  v.fill(variance);
  set_spherical(centres, v);
}

// Calls row(j, d2_j) for each centre j in order with its squared distances to every centre,
// +inf at j itself (a centre is not its own neighbour; 0 for a coincident other centre). In
// blocks of rows: the M x M matrix whole would be 149 MB at M = 4,311, paged in for a mean.
template <class Row>
void between_centres(const Centres& centres, Row&& row) {
  constexpr std::size_t block = 256;
  const std::size_t m = centres.count(), d = centres.means.shape(1);
  Matrix part;
  for (std::size_t j0 = 0; j0 < m; j0 += block) {
    const std::size_t rows = std::min(block, m - j0);
    part = Matrix::from_shape({rows, d});
    std::copy_n(centres.means.data() + j0 * d, rows * d, part.data());
    Matrix d2 = squared_euclidean(part, centres.means);
    for (std::size_t r = 0; r < rows; ++r) {
      double* d2_j = d2.data() + r * m;
      d2_j[j0 + r] = std::numeric_limits<double>::infinity();
      row(j0 + r, static_cast<const double*>(d2_j));
    }
  }
}

}  // namespace

const char* to_string(WidthRule rule) {
  for (const auto& entry : rule_names)
    if (entry.rule == rule) return entry.name;
  return "unknown";
}

OptionTable<WidthSpec> width_table(const std::string& component) {
  std::vector<std::pair<std::string, WidthRule>> names;
  for (const auto& entry : rule_names) names.emplace_back(entry.name, entry.rule);
  OptionTable<WidthSpec> t;
  t.bind("width", &WidthSpec::width,
         "standard deviation sigma for every centre (the rule \"fixed\"); 0: the rule "
         "width_rule; otherwise between 1.5e-154 and 1.3e154, so that width^2 is a normal double")
      .at_least(0.0);
  t.choice(
      "width_rule", &WidthSpec::rule, names,
      "how the centres' widths are set: auto (density: shapes; activation: nearest); "
      "shapes (the centre learner's, as learned; PRBF, DEM, Bayes outputs); max-distance "
      "(NETLAB rbfsetfw scale 0: sigma^2 = scale * largest squared distance between "
      "centres); nearest (NETLAB rbfsetfw: sigma^2 = scale * mean squared distance to the "
      "nearest other centre); p-nearest (Moody & Darken 1989: sigma_j^2 = scale * mean "
      "squared distance to centre j's width_p nearest centres); scaled-shapes (the learned "
      "shapes times scale); fixed (sigma = width)");
  t.custom(
       ParamSpec::real("width_scale", 1.0,
                       "factor on the rule's variance; \"choose\" (the default): the trainer "
                       "selects it by closed-form leave-one-out over 0.25 ... 32 (factors of 2; "
                       "past either end, to 1/256 or 2048, while it improves) together with the "
                       "output weights' penalty (Orr 1996), and 1 where "
                       "nothing selects; unused by shapes and fixed"),
       [](const WidthSpec& w) {
         return w.choose_scale ? ParamValue(std::string("choose")) : ParamValue(w.scale);
       },
       [](const Params& p, WidthSpec& w) {
         w.choose_scale = p.is_word("width_scale", "choose");
         if (!w.choose_scale) w.scale = p.real("width_scale");
       })
      .above(0.0)
      .or_words({"choose"})
      .plays(ParamRole::WidthScale);
  t.bind("width_p", &WidthSpec::p, "p of the p-nearest rule (at most M - 1 is used)").at_least(1);
  t.check([component](WidthSpec& spec) {
    if (spec.width > 0) {
      const double variance = spec.width * spec.width;
      if (!std::isnormal(variance)) {
        throw ParameterError(
            "plugin " + component + ", parameter width = " + text::number(spec.width) +
            ": the variance width^2 " +
            (variance < std::numeric_limits<double>::min()
                 ? "underflows to " + text::number(variance)
                 : std::string("overflows")) +
            ", so squared distances r^2 / width^2 cannot be computed. Give a width between " +
            text::number(std::sqrt(std::numeric_limits<double>::min())) + " and " +
            text::number(std::sqrt(std::numeric_limits<double>::max())) +
            " (useful widths are near the distances between centres, in the units of the "
            "(standardised) inputs), or width = 0 for the rule width_rule");
      }
      spec.rule = WidthRule::Fixed;
    } else if (spec.rule == WidthRule::Fixed) {
      throw ParameterError("plugin " + component +
                           ": width_rule = \"fixed\" needs a width > 0 (sigma for every centre)");
    }
  });
  return t;
}

ParamTable width_param_table() { return width_table("").params(); }

WidthSpec width_spec(const Params& params, const std::string& component) {
  return width_table(component).read(params);
}

bool width_scale_choosable(const WidthSpec& spec, bool density) {
  const WidthRule rule = resolve_rule(spec.rule, density);
  return spec.choose_scale && rule != WidthRule::Shapes && rule != WidthRule::Fixed;
}

WidthRule resolve_rule(WidthRule rule, bool density) {
  if (rule != WidthRule::Auto) return rule;
  return density ? WidthRule::Shapes : WidthRule::Nearest;
}

WidthResult apply_width_rule(Centres& centres, const WidthSpec& spec, bool density,
                             FitContext& ctx) {
  WidthResult result;
  result.rule = resolve_rule(spec.rule, density);
  result.scale = spec.scale;
  const std::size_t m = centres.count();
  const double scale = spec.scale;
  if ((result.rule == WidthRule::Shapes || result.rule == WidthRule::ScaledShapes) &&
      centres.shape == Shape::None) {
    if (result.rule == WidthRule::ScaledShapes)
      ctx.warn("no-shapes",
               "width_rule = \"scaled-shapes\" but the centre learner gave no shapes; used "
               "NETLAB's max-distance rule instead",
               "basis.width_rule");
    result.rule = WidthRule::MaxDistance;
  }
  switch (result.rule) {
    case WidthRule::Auto:
    case WidthRule::Shapes:
      result.scale = 1.0;
      return result;
    case WidthRule::ScaledShapes:
      centres.variances *= scale;
      centres.diagonal *= scale;
      centres.covariances *= scale;
      return result;
    case WidthRule::Fixed:
      result.scale = 1.0;
      result.common_variance = spec.width * spec.width;
      set_common(centres, result.common_variance);
      return result;
    case WidthRule::MaxDistance:
    case WidthRule::Nearest:
    case WidthRule::PNearest:
      break;
  }
  Vector variances = Vector::from_shape({m});
  if (result.rule == WidthRule::MaxDistance) {
    double largest = 0;
    between_centres(centres, [&](std::size_t j, const double* d2) {
      for (std::size_t i = 0; i < m; ++i)
        if (i != j) largest = std::max(largest, d2[i]);
    });
    variances.fill(scale * largest);
  } else if (result.rule == WidthRule::Nearest) {
    double sum = 0;
    between_centres(centres, [&](std::size_t, const double* d2) {
      double nearest = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < m; ++i) nearest = std::min(nearest, d2[i]);
      sum += nearest;
    });
    variances.fill(m > 1 ? scale * sum / double(m) : 0.0);
  } else {
    const std::size_t p = std::min(spec.p, m > 1 ? m - 1 : std::size_t(1));
    std::vector<double> row(m);
    between_centres(centres, [&](std::size_t j, const double* d2) {
      std::copy_n(d2, m, row.begin());
      std::partial_sort(row.begin(), row.begin() + std::ptrdiff_t(p), row.end());
      double sum = 0;
      for (std::size_t i = 0; i < p; ++i) sum += row[i];
      variances(j) = m > 1 ? scale * sum / double(p) : 0.0;
    });
  }
  // A centre with no distinct neighbour (one centre, coincident centres) has no distance to
  // take a width from: the variance `scale` (unit distances, as on standardised inputs).
  std::size_t zero = 0;
  for (double& v : variances)
    if (!(v > 0) || !std::isfinite(v) || !std::isnormal(v)) {
      v = scale;
      ++zero;
    }
  if (zero > 0)
    ctx.warn("zero-width",
             std::string("the width rule ") + to_string(result.rule) +
                 " gave no positive variance for " + std::to_string(zero) + " of " +
                 std::to_string(m) +
                 " centre(s) (no distinct neighbouring centre); used variance " +
                 text::number(scale) + " for them",
             "basis.width > 0 or more distinct centres");
  bool common = true;
  for (std::size_t j = 1; j < m; ++j) common = common && variances(j) == variances(0);
  result.common_variance = common && m > 0 ? variances(0) : 0.0;
  set_spherical(centres, variances);
  return result;
}

}  // namespace radial
