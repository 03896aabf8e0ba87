// The basis-with-widths template: the width rules through its table, closed-form values of the
// prepared basis under Mahalanobis distances (Radial::testing's checks for any metric), and the
// SDK's conformance kit (which also checks map_derivative against central differences).
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/basis_checks.hpp>

using radial::conformance::plugin_under_test;

namespace {

std::shared_ptr<radial::Basis> make(const std::map<std::string, radial::ParamValue>& given) {
  const auto& info = plugin_under_test().require(radial::Slot::Basis, "cauchy");
  return plugin_under_test().make_basis("cauchy",
                                        radial::validate_params(info.params, given, "test"));
}

radial::Centres three_centres() {
  radial::Centres c;
  c.means = {{0.0, 0.0}, {3.0, 0.0}, {0.0, 4.0}};
  return c;
}

const radial::testing::RadialFunction cauchy = [](double r) { return 1.0 / (1.0 + r * r); };

}  // namespace

TEST_CASE("cauchy: a fixed width sets every centre's variance to width^2") {
  const auto basis = make({{"width", 2.0}});
  radial::Centres c = three_centres();
  radial::FitContext ctx(1);
  basis->prepare(c, ctx);
  REQUIRE(c.shape == radial::Shape::Spherical);
  for (double v : c.variances) CHECK(v == Approx(4.0));
  CHECK_FALSE(basis->width_scale_selectable());
  // r^2 = ||x - c||^2 / 4: at ||x - c|| = 2, r = 1 and phi = 1/2.
  radial::testing::check_values(*basis, {{0.0, 1.0}, {1.0, 0.5}, {2.0, 0.2}}, 3);
  const radial::Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {3.0, 4.0}};
  radial::testing::check_gemm_block(*basis, c, x, cauchy);
  radial::testing::check_nan_propagates(*basis, 3);
}

TEST_CASE("cauchy: NETLAB's nearest-centre rule, its scale left to the trainer") {
  const auto basis = make({});
  CHECK(basis->width_scale_selectable());  // width_scale = "choose" by default
  const auto scaled = make({{"width_rule", std::string("nearest")}, {"width_scale", 2.0}});
  CHECK_FALSE(scaled->width_scale_selectable());
  radial::Centres c = three_centres();
  radial::FitContext ctx(1);
  scaled->prepare(c, ctx);
  // Nearest squared distances: 9, 9, 16; their mean 34/3, times the scale 2.
  REQUIRE(c.shape == radial::Shape::Spherical);
  for (double v : c.variances) CHECK(v == Approx(2.0 * 34.0 / 3.0));
  const radial::Matrix x = {{0.5, 0.5}, {2.0, -1.0}};
  radial::testing::check_gemm_block(*scaled, c, x, cauchy);
}

TEST_CASE("cauchy refuses a fixed rule without a width") {
  CHECK_THROWS_AS(make({{"width_rule", std::string("fixed")}}), radial::ParameterError);
}

TEST_CASE("cauchy passes the Radial conformance kit, its library alone too") {
  radial::conformance::check_plugin(plugin_under_test(), "cauchy");
  radial::conformance::Options fixed;
  fixed.params = {{"width", 0.5}};
  radial::conformance::check_plugin(plugin_under_test(), "cauchy", fixed);
  radial::Registry registry;
  radial::testing::require_basis_plugin(registry, "cauchy");
}
