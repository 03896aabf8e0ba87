// The r4logr basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/registry.hpp>
#include <radial/testing/paths.hpp>

#include "r4logr.hpp"

using namespace radial;
using radial::plugins::R4LogRBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return r > 0 ? std::pow(r, 4) * std::log(r) : 0.0; }

// map() on a row of squared distances r^2 for the given radii.
Matrix mapped(const Basis& basis, std::initializer_list<double> radii) {
  Matrix r2 = Matrix::from_shape({1, radii.size()});
  std::size_t j = 0;
  for (double r : radii) r2(0, j++) = r * r;
  basis.map(r2);
  return r2;
}

}  // namespace

TEST_CASE("r4logr matches its closed form, including r = 0", "[basis-r4logr]") {
  const R4LogRBasis basis;
  REQUIRE(basis.metric() == Metric::Euclidean);
  const Matrix got = mapped(basis, {0.0, 1.0, 2.0, std::exp(1.0), 0.5, 1e-75});
  REQUIRE(got(0, 0) == 0.0);  // r = 0.0
  REQUIRE(got(0, 1) == 0.0);  // r = 1.0
  REQUIRE(got(0, 2) == Approx(16.0 * std::log(2.0)).epsilon(1e-14));  // r = 2.0
  REQUIRE(got(0, 3) == Approx(std::exp(4.0)).epsilon(1e-14));  // r = std::exp(1.0)
  REQUIRE(got(0, 4) == Approx(-0.0625 * std::log(2.0)).epsilon(1e-14));  // r = 0.5
  REQUIRE(got(0, 5) == Approx(1e-300 * std::log(1e-75)).epsilon(1e-14));  // r = 1e-75
}

TEST_CASE("r4logr on a block of distances from the GEMM identity", "[basis-r4logr]") {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}};
  const Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {2.5, 0.5}, {1e-9, 0.0}};
  const R4LogRBasis basis;
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

TEST_CASE("r4logr is half of NETLAB's 'r4logr' r^4 log r^2", "[basis-r4logr]") {
  // NETLAB rbffwd: z = n2 .* n2 .* log(n2 + (n2 == 0)).
  const R4LogRBasis basis;
  Matrix r2 = {{0.0, 0.3, 2.0, 17.0}};
  const Matrix n2 = r2;
  basis.map(r2);
  for (std::size_t j = 0; j < 4; ++j) {
    const double netlab = n2(0, j) * n2(0, j) * std::log(n2(0, j) + (n2(0, j) == 0 ? 1.0 : 0.0));
    REQUIRE(2 * r2(0, j) == Approx(netlab).epsilon(1e-14).margin(1e-300));
  }
}

TEST_CASE("r4logr has no state to restore", "[basis-r4logr]") {
  R4LogRBasis basis;
  REQUIRE(basis.state().empty());
  basis.load_state({});
  REQUIRE(mapped(basis, {2.0})(0, 0) == Approx(phi(2.0)).epsilon(1e-14));
}

TEST_CASE("r4logr propagates NaN distances instead of hiding them", "[basis-r4logr]") {
  const R4LogRBasis basis;
  Matrix r2 = {{std::nan(""), 0.0}};
  basis.map(r2);
  REQUIRE(std::isnan(r2(0, 0)));
  REQUIRE(r2(0, 1) == 0.0);
}

TEST_CASE("r4logr plugin loads through the registry", "[basis-r4logr][registry]") {
  Registry registry;
  registry.load_file(testing::plugin_dir() / "libradial-basis-r4logr.so");
  const ComponentInfo& info = registry.require(Slot::Basis, "r4logr");
  REQUIRE(info.slot == Slot::Basis);
  REQUIRE_FALSE(info.summary.empty());
  REQUIRE_FALSE(info.paper.empty());
  const Params params = validate_params(info.params, {}, "plugin r4logr");
  std::shared_ptr<Basis> basis = registry.make_basis("r4logr", params);
  Centres c;
  c.means = {{0.0, 0.0}};
  FitContext ctx(1);
  basis->prepare(c, ctx);
  REQUIRE(c.shape == Shape::None);  // Euclidean bases leave the centres alone
  const Matrix got = mapped(*basis, {0.0, 2.0});
  REQUIRE(got(0, 0) == Approx(phi(0.0)).margin(1e-300));
  REQUIRE(got(0, 1) == Approx(phi(2.0)).epsilon(1e-14));
}
