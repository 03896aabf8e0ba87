// The cubic basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/registry.hpp>
#include <radial/testing/paths.hpp>

#include "cubic.hpp"

using namespace radial;
using radial::plugins::CubicBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r * r * r; }

// map() on a row of squared distances r^2 for the given radii.
Matrix mapped(const Basis& basis, std::initializer_list<double> radii) {
  Matrix r2 = Matrix::from_shape({1, radii.size()});
  std::size_t j = 0;
  for (double r : radii) r2(0, j++) = r * r;
  basis.map(r2);
  return r2;
}

}  // namespace

TEST_CASE("cubic matches its closed form, including r = 0", "[basis-cubic]") {
  const CubicBasis basis;
  REQUIRE(basis.metric() == Metric::Euclidean);
  const Matrix got = mapped(basis, {0.0, 1.0, 2.0, 1.5, std::sqrt(2.0), 1e-100});
  REQUIRE(got(0, 0) == 0.0);  // r = 0.0
  REQUIRE(got(0, 1) == Approx(1.0).epsilon(1e-14));  // r = 1.0
  REQUIRE(got(0, 2) == Approx(8.0).epsilon(1e-14));  // r = 2.0
  REQUIRE(got(0, 3) == Approx(3.375).epsilon(1e-14));  // r = 1.5
  REQUIRE(got(0, 4) == Approx(2.0 * std::sqrt(2.0)).epsilon(1e-14));  // r = std::sqrt(2.0)
  REQUIRE(got(0, 5) == Approx(1e-300).epsilon(1e-14));  // r = 1e-100
}

TEST_CASE("cubic on a block of distances from the GEMM identity", "[basis-cubic]") {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}};
  const Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {2.5, 0.5}, {1e-9, 0.0}};
  const CubicBasis basis;
  Matrix r2;
  SquaredDistances(c, basis.metric()).compute(x, r2);
  basis.map(r2);
  for (std::size_t i = 0; i < x.shape(0); ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      const double r = std::hypot(x(i, 0) - c.means(j, 0), x(i, 1) - c.means(j, 1));
      INFO("row " << i << " centre " << j << " r " << r);
      REQUIRE(std::isfinite(r2(i, j)));
      // The identity rounds r^2 by ~1e-15 near 0, where phi changes by ~1e-14 at most.
      REQUIRE(r2(i, j) == Approx(phi(r)).epsilon(1e-12).margin(1e-13));
    }
}

TEST_CASE("cubic has no state to restore", "[basis-cubic]") {
  CubicBasis basis;
  REQUIRE(basis.state().empty());
  basis.load_state({});
  REQUIRE(mapped(basis, {2.0})(0, 0) == Approx(phi(2.0)).epsilon(1e-14));
}

TEST_CASE("cubic propagates NaN distances instead of hiding them", "[basis-cubic]") {
  const CubicBasis basis;
  Matrix r2 = {{std::nan(""), 0.0}};
  basis.map(r2);
  REQUIRE(std::isnan(r2(0, 0)));
  REQUIRE(r2(0, 1) == 0.0);
}

TEST_CASE("cubic plugin loads through the registry", "[basis-cubic][registry]") {
  Registry registry;
  registry.load_file(testing::plugin_dir() / "libradial-basis-cubic.so");
  const ComponentInfo& info = registry.require(Slot::Basis, "cubic");
  REQUIRE(info.slot == Slot::Basis);
  REQUIRE_FALSE(info.summary.empty());
  REQUIRE_FALSE(info.paper.empty());
  const Params params = validate_params(info.params, {}, "plugin cubic");
  std::shared_ptr<Basis> basis = registry.make_basis("cubic", params);
  Centres c;
  c.means = {{0.0, 0.0}};
  FitContext ctx(1);
  basis->prepare(c, ctx);
  REQUIRE(c.shape == Shape::None);  // Euclidean bases leave the centres alone
  const Matrix got = mapped(*basis, {0.0, 2.0});
  REQUIRE(got(0, 0) == Approx(phi(0.0)).margin(1e-300));
  REQUIRE(got(0, 1) == Approx(phi(2.0)).epsilon(1e-14));
}
