#pragma once
// Checks shared by the tests of the radial basis plugins: each test passes its basis and the
// closed form phi(r) it is checked against.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>

#include "radial/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/registry.hpp"
#include "radial/testing/plugin_checks.hpp"

namespace radial::testing {

// phi(r) in closed form, as a function of the distance r.
using RadialFunction = std::function<double(double)>;

// map() on a row of squared distances r^2 for the given radii.
inline Matrix mapped(const Basis& basis, std::initializer_list<double> radii) {
  Matrix r2 = Matrix::from_shape({1, radii.size()});
  std::size_t j = 0;
  for (double r : radii) r2(0, j++) = r * r;
  basis.map(r2);
  return r2;
}

// A radius and phi(r) worked out by hand.
struct RadialValue {
  double r, phi;
};

// map() at each radius against the value worked out by hand: exactly where that is 0 (phi(0) of
// a polyharmonic spline, phi(1) of r^k log r), else to 1e-14 relative. The basis must be
// Euclidean, since r^2 is then the squared distance map() is given.
inline void check_values(const Basis& basis, std::initializer_list<RadialValue> values) {
  REQUIRE(basis.metric() == Metric::Euclidean);
  Matrix r2 = Matrix::from_shape({1, values.size()});
  std::size_t j = 0;
  for (const RadialValue& v : values) r2(0, j++) = v.r * v.r;
  basis.map(r2);
  j = 0;
  for (const RadialValue& v : values) {
    INFO("r = " << v.r);
    if (v.phi == 0.0)
      REQUIRE(r2(0, j) == 0.0);
    else
      REQUIRE(r2(0, j) == Approx(v.phi).epsilon(1e-14));
    ++j;
  }
}

// An even-order polyharmonic spline phi(r) = r^(2k) log r (thin-plate k = 1, r4logr k = 2) at
// radii where its value has a closed form: 0 at r = 0 and r = 1, 2^(2k) log 2 at 2, e^(2k) at e,
// -(1/2)^(2k) log 2 at 1/2, and r^(2k) log r at the r where r^(2k) = 1e-300 is still normal.
inline void check_polyharmonic_log_values(const Basis& basis, unsigned k) {
  const double tiny = std::pow(10.0, -300.0 / (2 * k));
  check_values(basis, {{0.0, 0.0}, {1.0, 0.0}, {2.0, std::pow(2.0, 2 * k) * std::log(2.0)},
                       {std::exp(1.0), std::exp(2.0 * k)},
                       {0.5, -std::pow(0.5, 2 * k) * std::log(2.0)},
                       {tiny, 1e-300 * std::log(tiny)}});
}

// map() on a block of squared distances from the framework's GEMM identity against phi of the
// directly computed distances.
inline void check_gemm_block(const Basis& basis, const RadialFunction& phi) {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}};
  const Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {2.5, 0.5}, {1e-9, 0.0}};
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

// A basis without parameters: empty state, and loading it leaves the basis working.
inline void check_no_state(Basis& basis, const RadialFunction& phi) {
  REQUIRE(basis.state().empty());
  basis.load_state({});
  REQUIRE(mapped(basis, {2.0})(0, 0) == Approx(phi(2.0)).epsilon(1e-14));
}

// A NaN distance stays NaN; its neighbour is unaffected (phi(0) as mapped alone).
inline void check_nan_propagates(const Basis& basis) {
  Matrix r2 = {{std::nan(""), 0.0}};
  basis.map(r2);
  Matrix alone = {{0.0}};
  basis.map(alone);
  REQUIRE(std::isnan(r2(0, 0)));
  REQUIRE(r2(0, 1) == alone(0, 0));
}

// `basis` is NETLAB's rbffwd activation with squared distance n2, halved:
// 2 * map(n2) == netlab(n2).
inline void check_half_of_netlab(const Basis& basis, const RadialFunction& netlab) {
  Matrix r2 = {{0.0, 0.3, 2.0, 17.0}};
  const Matrix n2 = r2;
  basis.map(r2);
  for (std::size_t j = 0; j < 4; ++j)
    REQUIRE(2 * r2(0, j) == Approx(netlab(n2(0, j))).epsilon(1e-14).margin(1e-300));
}

// log_map() of a quadric basis phi = (r^2 + c^2)^(beta/2) built with c = 2 (beta = 1: the
// multiquadric, -1: the inverse multiquadric) is (beta/2) log(r^2 + 4).
inline void check_quadric_log_map(const Basis& basis, int beta) {
  REQUIRE(basis.has_log_map());
  Matrix r2 = {{0.0, 9.0, 2.25}};
  basis.log_map(r2);
  const double half_beta = 0.5 * beta;
  REQUIRE(r2(0, 0) == Approx(half_beta * std::log(4.0)).epsilon(1e-14));
  REQUIRE(r2(0, 1) == Approx(half_beta * std::log(13.0)).epsilon(1e-14));
  REQUIRE(r2(0, 2) == Approx(half_beta * std::log(6.25)).epsilon(1e-14));
}

// A basis with shape parameter c: restoring the state of `saved` into a basis built with another
// c reproduces phi; a non-positive or missing c is a model-file error.
template <class B>
void check_state_round_trip(const B& saved, const RadialFunction& phi) {
  B restored({1.0});  // options struct {c}
  restored.load_state(saved.state());
  REQUIRE(mapped(restored, {3.0})(0, 0) == Approx(phi(3.0)).epsilon(1e-14));
  REQUIRE_THROWS_AS(restored.load_state({{"c", -2.0}}), ModelFileError);
  REQUIRE_THROWS_AS(restored.load_state({}), ModelFileError);
}

// Loads the plugin library of basis `id` alone and checks its registration text.
inline const ComponentInfo& require_basis_plugin(Registry& registry, const std::string& id) {
  return require_plugin(registry, "basis-" + id, Slot::Basis, id);
}

// A basis made by the registry: Euclidean, so prepare() leaves the centres alone, and map()
// follows phi.
inline void check_registered_euclidean_basis(Basis& basis, const RadialFunction& phi) {
  Centres c;
  c.means = {{0.0, 0.0}};
  FitContext ctx(1);
  basis.prepare(c, ctx);
  REQUIRE(c.shape == Shape::None);  // Euclidean bases leave the centres alone
  const Matrix got = mapped(basis, {0.0, 2.0});
  REQUIRE(got(0, 0) == Approx(phi(0.0)).margin(1e-300));
  REQUIRE(got(0, 1) == Approx(phi(2.0)).epsilon(1e-14));
}

// What every basis without parameters passes (or with optional ones only, such as the polynomial
// term's degree, at their defaults), one section each: a block from the GEMM identity, no state,
// NaN propagation, and the plugin `id` through the registry.
template <class B>
void check_parameter_free_basis(const std::string& id, const RadialFunction& phi) {
  SECTION("a block of distances from the GEMM identity") { check_gemm_block(B(), phi); }
  SECTION("no state to restore") {
    B basis;
    check_no_state(basis, phi);
  }
  SECTION("NaN distances propagate instead of being hidden") { check_nan_propagates(B()); }
  SECTION("the plugin loads through the registry") {
    Registry registry;
    const ComponentInfo& info = require_basis_plugin(registry, id);
    // Only optional parameters (the polynomial term's degree), whose defaults leave the basis
    // the closed form alone.
    for (const ParamSpec& spec : info.params) REQUIRE_FALSE(spec.required);
    const Params params = validate_params(info.params, {}, "plugin " + id);
    check_registered_euclidean_basis(*registry.make_basis(id, params), phi);
  }
}

}  // namespace radial::testing
