// Each width rule against its formula written out on five centres in the plane (NETLAB's
// rbfsetfw for max-distance and nearest, Moody & Darken's p-nearest, scaled shapes, fixed), and
// the automatic centre count.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <radial/network/centre_learner.hpp>
#include <radial/core/errors.hpp>
#include <radial/network/width_rule.hpp>
#include <vector>

using namespace radial;

namespace {

// Squared distances written out by hand below: centres on a line and one off it.
Centres five() {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, 0.0}, {3.0, 0.0}, {7.0, 0.0}, {0.0, 2.0}};
  return c;
}

double d2(const Centres& c, std::size_t i, std::size_t j) {
  const double a = c.means(i, 0) - c.means(j, 0), b = c.means(i, 1) - c.means(j, 1);
  return a * a + b * b;
}

WidthSpec spec(WidthRule rule, double scale = 1, std::size_t p = 2) {
  WidthSpec s;
  s.rule = rule;
  s.scale = scale;
  s.p = p;
  return s;
}

Params params(const std::string& rule, ParamValue scale, double width = 0) {
  return Params({{"width", width},
                 {"width_rule", rule},
                 {"width_scale", scale},
                 {"width_p", std::int64_t(3)}});
}

}  // namespace

TEST_CASE("max-distance: scale times the largest squared distance between centres",
          "[width-rules]") {
  Centres c = five();
  FitContext ctx(1);
  const WidthResult r = apply_width_rule(c, spec(WidthRule::MaxDistance, 0.5), false, ctx);
  // Largest: (7,0)-(0,2): 49 + 4 = 53.
  REQUIRE(c.shape == Shape::Spherical);
  for (double v : c.variances) REQUIRE(v == 0.5 * 53.0);
  REQUIRE(r.common_variance == 0.5 * 53.0);
  REQUIRE(ctx.report.warnings.empty());
}

TEST_CASE("nearest: scale times the mean squared distance to the nearest other centre",
          "[width-rules]") {
  Centres c = five();
  FitContext ctx(1);
  apply_width_rule(c, spec(WidthRule::Nearest, 2.0), false, ctx);
  // Nearest squared distances: c0 1 (c1), c1 1 (c0), c2 4 (c1), c3 16 (c2), c4 4 (c0).
  const double mean = (1 + 1 + 4 + 16 + 4) / 5.0;
  for (double v : c.variances) REQUIRE(v == Approx(2.0 * mean).epsilon(1e-15));
  // The formula by brute force, as NETLAB's mean(min(dist2 + realmax * eye)).
  double sum = 0;
  for (std::size_t j = 0; j < 5; ++j) {
    double nearest = 1e300;
    for (std::size_t i = 0; i < 5; ++i)
      if (i != j) nearest = std::min(nearest, d2(c, i, j));
    sum += nearest;
  }
  REQUIRE(c.variances(0) == Approx(2.0 * sum / 5).epsilon(1e-15));
}

TEST_CASE("p-nearest: per centre, scale times the mean of its p nearest squared distances",
          "[width-rules]") {
  Centres c = five();
  FitContext ctx(1);
  const WidthResult r = apply_width_rule(c, spec(WidthRule::PNearest, 1.0, 2), false, ctx);
  REQUIRE(r.common_variance == 0);  // the widths differ
  for (std::size_t j = 0; j < 5; ++j) {
    std::vector<double> others;
    for (std::size_t i = 0; i < 5; ++i)
      if (i != j) others.push_back(d2(c, i, j));
    std::sort(others.begin(), others.end());
    INFO("centre " << j);
    REQUIRE(c.variances(j) == Approx((others[0] + others[1]) / 2).epsilon(1e-15));
  }
  // c3 = (7,0): 16 (c2) and 36 (c1).
  REQUIRE(c.variances(3) == 26.0);
  // p larger than M - 1 uses every other centre.
  Centres all = five();
  apply_width_rule(all, spec(WidthRule::PNearest, 1.0, 10), false, ctx);
  REQUIRE(all.variances(0) == Approx((1 + 9 + 49 + 4) / 4.0).epsilon(1e-15));
}

TEST_CASE("shapes keep the learned shapes; scaled shapes multiply them", "[width-rules]") {
  Centres c = five();
  c.shape = Shape::Diagonal;
  c.diagonal = xt::ones<double>({std::size_t(5), std::size_t(2)}) * 0.25;
  FitContext ctx(1);
  Centres kept = c;
  apply_width_rule(kept, spec(WidthRule::Auto), true, ctx);  // a density: shapes
  REQUIRE(kept.shape == Shape::Diagonal);
  REQUIRE((kept.diagonal == c.diagonal));
  Centres scaled = c;
  apply_width_rule(scaled, spec(WidthRule::ScaledShapes, 8.0), false, ctx);
  REQUIRE(scaled.shape == Shape::Diagonal);
  for (double v : scaled.diagonal) REQUIRE(v == 2.0);
  REQUIRE(ctx.report.warnings.empty());
  // Activations by default: the nearest-centre rule, whatever the learner's shapes.
  Centres active = c;
  const WidthResult r = apply_width_rule(active, spec(WidthRule::Auto), false, ctx);
  REQUIRE(r.rule == WidthRule::Nearest);
  REQUIRE(active.shape == Shape::Spherical);
  // No shapes to scale: the max-distance rule, with a warning naming the setting.
  Centres none = five();
  apply_width_rule(none, spec(WidthRule::ScaledShapes, 2.0), false, ctx);
  REQUIRE(none.variances(0) == 2.0 * 53.0);
  REQUIRE(ctx.report.warnings.back().guard == "no-shapes");
}

TEST_CASE("width parameters: fixed, choose, and their checks", "[width-rules]") {
  const WidthSpec fixed = width_spec(params("nearest", 1.0, 0.5), "t");
  REQUIRE(fixed.rule == WidthRule::Fixed);  // width > 0 wins, as before the rules
  Centres c = five();
  FitContext ctx(1);
  apply_width_rule(c, fixed, false, ctx);
  for (double v : c.variances) REQUIRE(v == 0.25);
  const WidthSpec chosen = width_spec(params("nearest", std::string("choose")), "t");
  REQUIRE(chosen.choose_scale);
  REQUIRE(chosen.scale == 1.0);
  REQUIRE(chosen.p == 3);
  REQUIRE_THROWS_AS(width_spec(params("fixed", 1.0), "t"), ParameterError);
  // The table accepts "choose" but no other word for the scale.
  const ParamTable table = width_param_table();
  REQUIRE(check_param_table(table).empty());
  REQUIRE(check_params(table, {{"width_scale", std::string("choose")}}).empty());
  const auto problems = check_params(table, {{"width_scale", std::string("chose")}});
  REQUIRE(problems.size() == 1);
  REQUIRE_THAT(problems[0].message, Catch::Contains("did you mean \"choose\""));
}

TEST_CASE("auto centre count grows as max(8, 4 ln N - 24) sqrt(N), within N / 2 and max(10^4, 40 K)",
          "[width-rules]") {
  REQUIRE(auto_centre_count(1) == 1);
  REQUIRE(auto_centre_count(10) == 5);      // N / 2
  REQUIRE(auto_centre_count(150) == 75);    // N / 2 < 98
  REQUIRE(auto_centre_count(1437) == 304);  // ceil(8 * 37.9): 4 ln N - 24 = 5.1 < 8
  REQUIRE(auto_centre_count(2981) == 437);  // ln N = 8.0: both factors 8
  REQUIRE(auto_centre_count(4000) == 581);  // ceil((4 * 8.294 - 24) * 63.25)
  REQUIRE(auto_centre_count(20000) == 2209);  // ceil((4 * 9.903 - 24) * 141.4)
  REQUIRE(auto_centre_count(50000) == 4311);
  REQUIRE(auto_centre_count(1000000) == 10000);  // 31,262 capped
  // K classes raise the cap to 40 K.
  REQUIRE(auto_centre_count(10000000, 300) == 12000);
  REQUIRE(auto_centre_count(16000, 26) == 1863);
  REQUIRE(auto_centre_count(150, 26) == 75);  // N / 2 still binds
}
