// The gaussian basis against closed forms: NETLAB's convention exp(-||x-c||^2 / (2 w)) with
// w = the largest squared distance between centres, the normalised density written out for
// 2 x 2 covariances, and the framework's GaussianLogDensity; then through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/core/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/numerics/gaussian.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/testing/paths.hpp>

#include "gaussian_basis.hpp"

using namespace radial;
using radial::plugins::GaussianBasis;

namespace {

// Options as the factory makes them, with its width checks.
plugins::GaussianOptions options(const std::string& rule, double width = 0, bool density = false,
                                 double scale = 1) {
  return plugins::gaussian_table().read(Params({{"width", width},
                                           {"width_rule", rule},
                                           {"width_scale", scale},
                                           {"width_p", std::int64_t(2)},
                                           {"density", density}}));
}

plugins::GaussianOptions with_width(double width) { return options("auto", width); }

// Three centres whose largest squared distance is ||(3,0) - (0,4)||^2 = 25.
Centres netlab_centres() {
  Centres c;
  c.means = {{0.0, 0.0}, {3.0, 0.0}, {0.0, 4.0}};
  return c;
}

const Matrix points = {{0.0, 0.0}, {1.0, 2.0}, {-2.0, 0.5}, {3.0, 4.0}};

// Squared distances of basis.metric() for `points`.
Matrix distances(const Basis& basis, const Centres& c) {
  Matrix r2;
  SquaredDistances(c, basis.metric()).compute(points, r2);
  return r2;
}

// Full covariances for two centres, 2 x 2, written out for the closed-form density.
Centres full_centres() {
  Centres c;
  c.means = {{0.5, -1.0}, {2.0, 1.0}};
  c.shape = Shape::Full;
  c.covariances = {{{2.0, 0.6}, {0.6, 1.0}}, {{0.5, -0.2}, {-0.2, 0.3}}};
  return c;
}

double density_2d(double x0, double x1, double m0, double m1, double a, double b, double d) {
  // N(x | m, [[a, b], [b, d]]) = exp(-q / 2) / (2 pi sqrt(det)), q = v^T S^{-1} v
  const double det = a * d - b * b;
  const double v0 = x0 - m0, v1 = x1 - m1;
  const double q = (d * v0 * v0 - 2 * b * v0 * v1 + a * v1 * v1) / det;
  return std::exp(-0.5 * q) / (2 * M_PI * std::sqrt(det));
}

}  // namespace

TEST_CASE("gaussian follows NETLAB's width rule and convention", "[basis-gaussian]") {
  Centres c = netlab_centres();
  FitContext ctx(1);
  GaussianBasis basis(options("max-distance"));
  REQUIRE(basis.metric() == Metric::Shape);
  basis.prepare(c, ctx);
  REQUIRE(ctx.report.warnings.empty());
  REQUIRE(c.shape == Shape::Spherical);
  REQUIRE(c.variances.size() == 3);
  for (double v : c.variances) REQUIRE(v == Approx(25.0).epsilon(1e-14));
  const State state = basis.state();
  REQUIRE(std::get<std::string>(state.at("width_rule")) == "max-distance");
  REQUIRE(std::get<double>(state.at("common_variance")) == Approx(25.0).epsilon(1e-14));

  Matrix phi = distances(basis, c);
  basis.map(phi);
  for (std::size_t i = 0; i < points.shape(0); ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const double dx = points(i, 0) - c.means(j, 0), dy = points(i, 1) - c.means(j, 1);
      INFO("point " << i << " centre " << j);
      REQUIRE(phi(i, j) == Approx(std::exp(-(dx * dx + dy * dy) / (2 * 25.0))).epsilon(1e-14));
    }
  REQUIRE(phi(0, 0) == 1.0);  // r = 0
}

TEST_CASE("gaussian width sets a spherical standard deviation over any shapes",
          "[basis-gaussian]") {
  Centres c = full_centres();
  FitContext ctx(1);
  GaussianBasis basis(with_width(2.0));
  basis.prepare(c, ctx);
  REQUIRE(c.shape == Shape::Spherical);
  REQUIRE(c.covariances.size() == 0);
  for (double v : c.variances) REQUIRE(v == 4.0);
  REQUIRE(std::get<std::string>(basis.state().at("width_rule")) == "fixed");
  REQUIRE_FALSE(basis.width_scale_selectable());
  Matrix phi = distances(basis, c);
  basis.map(phi);
  const double dx = points(1, 0) - 2.0, dy = points(1, 1) - 1.0;
  REQUIRE(phi(1, 1) == Approx(std::exp(-(dx * dx + dy * dy) / (2 * 4.0))).epsilon(1e-14));
}

TEST_CASE("gaussian density equals N(x|c,S) and GaussianLogDensity", "[basis-gaussian]") {
  Centres c = full_centres();
  FitContext ctx(1);
  GaussianBasis basis(options("auto", 0.0, true));
  REQUIRE_FALSE(basis.width_scale_selectable());
  basis.prepare(c, ctx);
  REQUIRE(c.shape == Shape::Full);  // a density keeps the centres' own shapes
  REQUIRE(std::get<std::string>(basis.state().at("width_rule")) == "shapes");

  Matrix phi = distances(basis, c), log_phi = distances(basis, c);
  basis.map(phi);
  basis.log_map(log_phi);
  Matrix reference;
  GaussianLogDensity(c).compute(points, reference);
  for (std::size_t i = 0; i < points.shape(0); ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const double want = density_2d(points(i, 0), points(i, 1), c.means(j, 0), c.means(j, 1),
                                     c.covariances(j, 0, 0), c.covariances(j, 0, 1),
                                     c.covariances(j, 1, 1));
      INFO("point " << i << " centre " << j);
      REQUIRE(phi(i, j) == Approx(want).epsilon(1e-13));
      REQUIRE(log_phi(i, j) == Approx(std::log(want)).epsilon(1e-13));
      REQUIRE(log_phi(i, j) == Approx(reference(i, j)).epsilon(1e-13));
    }
  // r = 0: the peak 1 / (2 pi sqrt|S|).
  Matrix at_centre = {{0.0, 0.0}};
  basis.map(at_centre);
  REQUIRE(at_centre(0, 0) == Approx(1.0 / (2 * M_PI * std::sqrt(2.0 - 0.36))).epsilon(1e-14));
  REQUIRE(at_centre(0, 1) == Approx(1.0 / (2 * M_PI * std::sqrt(0.15 - 0.04))).epsilon(1e-14));
}

TEST_CASE("gaussian guards a collapsed width and rejects bad shapes", "[basis-gaussian]") {
  Centres one;
  one.means = {{1.0, 2.0}};
  FitContext ctx(1);
  GaussianBasis basis(options("nearest"));
  basis.prepare(one, ctx);
  REQUIRE(ctx.report.warnings.size() == 1);
  REQUIRE(ctx.report.warnings[0].guard == "zero-width");
  REQUIRE(ctx.report.warnings[0].setting == "basis.width > 0 or more distinct centres");
  REQUIRE(one.variances(0) == 1.0);

  Centres bad = full_centres();
  bad.covariances(1, 0, 1) = bad.covariances(1, 1, 0) = 1.0;  // det = 0.15 - 1 < 0
  REQUIRE_THROWS_WITH(GaussianBasis(options("auto", 0.0, true)).prepare(bad, ctx), Catch::Contains("centre 1"));

  GaussianBasis unprepared(options("auto"));
  Matrix r2 = {{1.0, 2.0}};
  REQUIRE_THROWS_AS(unprepared.map(r2), ShapeError);
}

TEST_CASE("gaussian state restores map()", "[basis-gaussian]") {
  Centres c = full_centres();
  FitContext ctx(1);
  GaussianBasis trained(options("auto", 0.0, true));
  trained.prepare(c, ctx);
  GaussianBasis restored(options("auto"));  // the density flag comes from the state
  restored.load_state(trained.state());
  REQUIRE(std::get<std::string>(restored.state().at("width_rule")) == "shapes");
  Matrix a = distances(trained, c), b = a;
  trained.map(a);
  restored.map(b);
  REQUIRE((a == b));
  State broken = trained.state();
  broken.erase("log_scale");
  REQUIRE_THROWS_AS(restored.load_state(broken), ModelFileError);
}

TEST_CASE("gaussian plugin loads through the registry", "[basis-gaussian][registry]") {
  Registry registry;
  registry.load_file(testing::plugin_dir() / "libradial-basis-gaussian.so");
  const ComponentInfo& info = registry.require(Slot::Basis, "gaussian");
  REQUIRE(find_param(info.params, "width") != nullptr);
  REQUIRE(find_param(info.params, "density") != nullptr);
  REQUIRE_THROWS_AS(validate_params(info.params, {{"width", -1.0}}, "plugin gaussian"),
                    ParameterError);

  const Params params = validate_params(info.params, {{"density", true}}, "plugin gaussian");
  std::shared_ptr<Basis> basis = registry.make_basis("gaussian", params);
  Centres c = full_centres();
  FitContext ctx(1);
  basis->prepare(c, ctx);
  Matrix phi = distances(*basis, c);
  basis->map(phi);
  REQUIRE(phi(2, 0) == Approx(density_2d(-2.0, 0.5, 0.5, -1.0, 2.0, 0.6, 1.0)).epsilon(1e-13));
}

TEST_CASE("gaussian refuses a width whose square is not a usable variance, and says which work",
          "[basis-gaussian]") {
  // width = 1e-300 > 0, but width^2 = 1e-600 underflows to 0: the message gives the usable range.
  REQUIRE_THROWS_AS(with_width(1e-300), ParameterError);
  REQUIRE_THROWS_WITH(with_width(1e-300),
                      Catch::Contains("width = 1e-300") && Catch::Contains("underflows to 0") &&
                          Catch::Contains("between 1.49167e-154 and 1.34078e+154"));
  REQUIRE_THROWS_WITH(with_width(1e200), Catch::Contains("overflows"));
  // The ends of the range are usable: exp(-r^2 / (2 width^2)) is 1 at r = 0.
  Centres one;
  one.means = {{1.0, 2.0}};
  FitContext ctx(1);
  GaussianBasis tiny(with_width(1.5e-154));
  tiny.prepare(one, ctx);
  Matrix r2 = {{0.0}};
  tiny.map(r2);
  REQUIRE(r2(0, 0) == 1.0);
  REQUIRE_NOTHROW(with_width(1.3e154));
}
