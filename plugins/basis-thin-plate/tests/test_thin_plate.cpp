// The thin-plate basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <xtensor/xview.hpp>

#include <radial/network/design_matrix.hpp>
#include <radial/plugin/loader.hpp>
#include <radial/sdk/conformance.hpp>
#include <radial/testing/basis_checks.hpp>

#include "thin_plate.hpp"

using namespace radial;
using radial::plugins::ThinPlateBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r > 0 ? r * r * std::log(r) : 0.0; }

}  // namespace

TEST_CASE("thin-plate matches its closed form, including r = 0", "[basis-thin-plate]") {
  testing::check_polyharmonic_log_values(ThinPlateBasis(), 1);
}

TEST_CASE("thin-plate is half of NETLAB's 'tps' r^2 log r^2", "[basis-thin-plate]") {
  // NETLAB rbffwd: z = n2 .* log(n2 + (n2 == 0)), with n2 the squared distance.
  const ThinPlateBasis basis;
  testing::check_half_of_netlab(
      basis, [](double n2) { return n2 * std::log(n2 + (n2 == 0 ? 1.0 : 0.0)); });
  REQUIRE_FALSE(basis.has_log_map());
}

TEST_CASE("thin-plate: GEMM block, no state, NaN, and the plugin through the registry",
          "[basis-thin-plate][registry]") {
  testing::check_parameter_free_basis<ThinPlateBasis>("thin-plate", phi);
}

TEST_CASE("thin-plate with polynomial = 1: the monomials of (x - shift) / scale before the bias",
          "[basis-thin-plate][polynomial]") {
  ThinPlateBasis basis(sdk::PolyharmonicOptions{1});
  REQUIRE(basis.polynomial() != nullptr);
  Centres c;
  // More centres than the 6 monomials of degree 2 below (the side conditions need it), with
  // the ranges [-1, 3] and [10, 14].
  c.means = {{-1.0, 10.0}, {3.0, 12.0}, {1.0, 14.0}, {0.0, 11.0},
             {2.0, 13.0}, {1.0, 12.0}, {0.5, 12.5}};
  const std::size_t m = c.count();
  FitContext ctx(1);
  basis.prepare(c, ctx);
  // SciPy's shift and scale: the centres' mid-range (1, 12) and half-range (2, 2).
  CHECK((basis.polynomial()->shift() == Vector{1.0, 12.0}));
  CHECK((basis.polynomial()->scale() == Vector{2.0, 2.0}));
  const Matrix x = {{0.0, 11.0}, {5.0, 12.0}};
  const Matrix design = DesignMatrix(x, c, basis).materialise();
  REQUIRE(design.shape(1) == m + 3);  // M activations, x1', x2', then the bias
  for (std::size_t n = 0; n < 2; ++n) {
    for (std::size_t j = 0; j < m; ++j)
      CHECK(design(n, j) ==
            Approx(phi(std::hypot(x(n, 0) - c.means(j, 0), x(n, 1) - c.means(j, 1))))
                .margin(1e-14));
    CHECK(design(n, m) == Approx((x(n, 0) - 1.0) / 2.0));
    CHECK(design(n, m + 1) == Approx((x(n, 1) - 12.0) / 2.0));
    CHECK(design(n, m + 2) == 1.0);
  }
  // The state restores the term: a fresh basis gives the same design.
  ThinPlateBasis restored(sdk::PolyharmonicOptions{1});
  restored.load_state(basis.state());
  CHECK((DesignMatrix(x, c, restored).materialise() == design));
  CHECK_THROWS_AS(restored.load_state({}), ModelFileError);
  // Degree 2 in two inputs: 6 monomials, SciPy's order x1, x2, x1^2, x1 x2, x2^2, then 1.
  ThinPlateBasis quadratic(sdk::PolyharmonicOptions{2});
  quadratic.prepare(c, ctx);
  const Matrix d2 = DesignMatrix(x, c, quadratic).materialise();
  REQUIRE(d2.shape(1) == m + 6);
  const double u = (5.0 - 1.0) / 2.0, v = 0.0;
  CHECK(d2(1, m + 2) == Approx(u * u));
  CHECK(d2(1, m + 3) == Approx(u * v).margin(1e-15));
  CHECK(d2(1, m + 4) == Approx(v * v).margin(1e-15));
  // Degree 2 on 6 centres: as many monomials as centres, refused.
  Centres six = c;
  six.means = xt::view(c.means, xt::range(0, 6), xt::all());
  ThinPlateBasis too_many(sdk::PolyharmonicOptions{2});
  CHECK_THROWS_WITH(too_many.prepare(six, ctx),
                    Catch::Matchers::Contains("more centres than monomials"));
}

TEST_CASE("thin-plate refuses a polynomial below its order, and passes the kit with one",
          "[basis-thin-plate][polynomial]") {
  Registry registry;
  const ComponentInfo& info = testing::require_basis_plugin(registry, "thin-plate");
  CHECK_THROWS_WITH(registry.make_basis("thin-plate", validate_params(info.params,
                                                                      {{"polynomial", 0}}, "t")),
                    Catch::Matchers::Contains("polynomial >= 1"));
  conformance::Options with_term;
  with_term.params = {{"polynomial", std::int64_t(1)}};
  conformance::check_plugin(registry, "thin-plate", with_term);
}
