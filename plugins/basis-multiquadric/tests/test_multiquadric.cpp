// The multiquadric basis against its closed form at known radii (r = 0 included), on a block
// of distances from the framework, and through the plugin registry.
#include <catch2/catch.hpp>

#include <cmath>

#include <radial/errors.hpp>
#include <radial/numerics/distances.hpp>
#include <radial/registry.hpp>
#include <radial/testing/paths.hpp>

#include "multiquadric.hpp"

using namespace radial;
using radial::plugins::MultiquadricBasis;

namespace {

// phi(r) in closed form.
double phi(double r) { return std::sqrt(r * r + 4.0); }

// map() on a row of squared distances r^2 for the given radii.
Matrix mapped(const Basis& basis, std::initializer_list<double> radii) {
  Matrix r2 = Matrix::from_shape({1, radii.size()});
  std::size_t j = 0;
  for (double r : radii) r2(0, j++) = r * r;
  basis.map(r2);
  return r2;
}

}  // namespace

TEST_CASE("multiquadric matches its closed form, including r = 0", "[basis-multiquadric]") {
  const MultiquadricBasis basis(2.0);
  REQUIRE(basis.metric() == Metric::Euclidean);
  const Matrix got = mapped(basis, {0.0, 3.0, 1.5, 1e3});
  REQUIRE(got(0, 0) == Approx(2.0).epsilon(1e-14));  // r = 0.0
  REQUIRE(got(0, 1) == Approx(std::sqrt(13.0)).epsilon(1e-14));  // r = 3.0
  REQUIRE(got(0, 2) == Approx(2.5).epsilon(1e-14));  // r = 1.5
  REQUIRE(got(0, 3) == Approx(std::sqrt(1e6 + 4.0)).epsilon(1e-14));  // r = 1e3
}

TEST_CASE("multiquadric on a block of distances from the GEMM identity", "[basis-multiquadric]") {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}};
  const Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {2.5, 0.5}, {1e-9, 0.0}};
  const MultiquadricBasis basis(2.0);
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

TEST_CASE("multiquadric log map and state", "[basis-multiquadric]") {
  MultiquadricBasis basis(2.0);
  REQUIRE(basis.has_log_map());
  Matrix r2 = {{0.0, 9.0, 2.25}};
  basis.log_map(r2);
  REQUIRE(r2(0, 0) == Approx(0.5 * std::log(4.0)).epsilon(1e-14));
  REQUIRE(r2(0, 1) == Approx(0.5 * std::log(13.0)).epsilon(1e-14));
  REQUIRE(r2(0, 2) == Approx(0.5 * std::log(6.25)).epsilon(1e-14));

  MultiquadricBasis restored(1.0);
  restored.load_state(basis.state());
  REQUIRE(mapped(restored, {3.0})(0, 0) == Approx(phi(3.0)).epsilon(1e-14));
  REQUIRE_THROWS_AS(restored.load_state({{"c", -2.0}}), ModelFileError);
  REQUIRE_THROWS_AS(restored.load_state({}), ModelFileError);
}

TEST_CASE("multiquadric plugin loads through the registry", "[basis-multiquadric][registry]") {
  Registry registry;
  registry.load_file(testing::plugin_dir() / "libradial-basis-multiquadric.so");
  const ComponentInfo& info = registry.require(Slot::Basis, "multiquadric");
  REQUIRE(info.slot == Slot::Basis);
  REQUIRE_FALSE(info.summary.empty());
  REQUIRE_FALSE(info.paper.empty());
  REQUIRE_THROWS_AS(validate_params(info.params, {{"c", 0.0}}, "plugin multiquadric"),
                    ParameterError);
  REQUIRE(validate_params(info.params, {}, "plugin multiquadric").real("c") == 1.0);
  const Params params = validate_params(info.params, {{"c", 2.0}}, "plugin multiquadric");
  std::shared_ptr<Basis> basis = registry.make_basis("multiquadric", params);
  Centres c;
  c.means = {{0.0, 0.0}};
  FitContext ctx(1);
  basis->prepare(c, ctx);
  REQUIRE(c.shape == Shape::None);  // Euclidean bases leave the centres alone
  const Matrix got = mapped(*basis, {0.0, 2.0});
  REQUIRE(got(0, 0) == Approx(phi(0.0)).margin(1e-300));
  REQUIRE(got(0, 1) == Approx(phi(2.0)).epsilon(1e-14));
}
