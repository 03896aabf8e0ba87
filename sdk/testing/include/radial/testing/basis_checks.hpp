#pragma once
// Checks shared by the tests of the radial basis plugins: each test passes its basis and the
// closed form phi(r) it is checked against.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "radial/core/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/plugin/loader.hpp"
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
// a polyharmonic spline, phi(1) of r^k log r), else to 1e-14 relative. r is the distance of the
// basis's metric (Euclidean, or Mahalanobis under the centres' shapes: map() is given r^2
// either way). `centres`: the number of columns the basis maps (a prepared basis may check it:
// the M it was prepared for); every column gets the same r^2 and must give the same phi, so a
// basis whose phi_j differs by centre (a density's constant) is checked by check_gemm_block.
inline void check_values(const Basis& basis, std::initializer_list<RadialValue> values,
                         std::size_t centres = 1) {
  Matrix r2 = Matrix::from_shape({values.size(), centres});
  std::size_t i = 0;
  for (const RadialValue& v : values) {
    for (std::size_t j = 0; j < centres; ++j) r2(i, j) = v.r * v.r;
    ++i;
  }
  basis.map(r2);
  i = 0;
  for (const RadialValue& v : values) {
    INFO("r = " << v.r);
    for (std::size_t j = 0; j < centres; ++j) {
      if (v.phi == 0.0)
        REQUIRE(r2(i, j) == 0.0);
      else
        REQUIRE(r2(i, j) == Approx(v.phi).epsilon(1e-14));
    }
    ++i;
  }
}

// The distance r_j(x) computed directly (no GEMM identity): Euclidean under Metric::Euclidean
// or centres without a shape; else Mahalanobis under centre j's spherical variance, diagonal or
// full covariance (the full one solved by Gaussian elimination with partial pivoting).
inline double direct_distance(const Centres& c, Metric metric, const double* x, std::size_t j) {
  const std::size_t d = c.dim();
  std::vector<double> diff(d);
  for (std::size_t k = 0; k < d; ++k) diff[k] = x[k] - c.means(j, k);
  double r2 = 0;
  if (metric == Metric::Euclidean || c.shape == Shape::None) {
    for (double v : diff) r2 += v * v;
  } else if (c.shape == Shape::Spherical) {
    for (double v : diff) r2 += v * v / c.variances(j);
  } else if (c.shape == Shape::Diagonal) {
    for (std::size_t k = 0; k < d; ++k) r2 += diff[k] * diff[k] / c.diagonal(j, k);
  } else {
    std::vector<double> a(d * d), b = diff;  // solve S y = diff, then r^2 = diff . y
    for (std::size_t p = 0; p < d; ++p)
      for (std::size_t q = 0; q < d; ++q) a[p * d + q] = c.covariances(j, p, q);
    for (std::size_t col = 0; col < d; ++col) {
      std::size_t pivot = col;
      for (std::size_t p = col + 1; p < d; ++p)
        if (std::fabs(a[p * d + col]) > std::fabs(a[pivot * d + col])) pivot = p;
      for (std::size_t q = 0; q < d; ++q) std::swap(a[col * d + q], a[pivot * d + q]);
      std::swap(b[col], b[pivot]);
      for (std::size_t p = col + 1; p < d; ++p) {
        const double f = a[p * d + col] / a[col * d + col];
        for (std::size_t q = col; q < d; ++q) a[p * d + q] -= f * a[col * d + q];
        b[p] -= f * b[col];
      }
    }
    for (std::size_t p = d; p-- > 0;) {
      for (std::size_t q = p + 1; q < d; ++q) b[p] -= a[p * d + q] * b[q];
      b[p] /= a[p * d + p];
    }
    for (std::size_t k = 0; k < d; ++k) r2 += diff[k] * b[k];
  }
  return std::sqrt(r2);
}

// map() on a block of squared distances from the framework's GEMM identity under `centres`
// against phi of the directly computed distances (direct_distance), for a basis of any metric:
// give a prepared basis the centres its prepare() set the shapes of.
inline void check_gemm_block(const Basis& basis, const Centres& centres, const Matrix& x,
                             const RadialFunction& phi) {
  Matrix r2;
  SquaredDistances(centres, basis.metric()).compute(x, r2);
  basis.map(r2);
  for (std::size_t i = 0; i < x.shape(0); ++i)
    for (std::size_t j = 0; j < centres.count(); ++j) {
      const double r = direct_distance(centres, basis.metric(), &x(i, 0), j);
      INFO("row " << i << " centre " << j << " r " << r);
      REQUIRE(std::isfinite(r2(i, j)));
      // The identity rounds r^2 by ~1e-15 near 0, where phi changes by ~1e-14 at most.
      REQUIRE(r2(i, j) == Approx(phi(r)).epsilon(1e-12).margin(1e-13));
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

// The same on three centres in the plane without shapes and five rows (one almost on a
// centre): for a Euclidean basis with nothing prepared.
inline void check_gemm_block(const Basis& basis, const RadialFunction& phi) {
  Centres c;
  c.means = {{0.0, 0.0}, {1.0, -1.0}, {2.5, 0.5}};
  const Matrix x = {{0.0, 0.0}, {1.0, 2.0}, {-3.0, 0.25}, {2.5, 0.5}, {1e-9, 0.0}};
  check_gemm_block(basis, c, x, phi);
}

// A basis without parameters: empty state, and loading it leaves the basis working.
inline void check_no_state(Basis& basis, const RadialFunction& phi) {
  REQUIRE(basis.state().empty());
  basis.load_state({});
  REQUIRE(mapped(basis, {2.0})(0, 0) == Approx(phi(2.0)).epsilon(1e-14));
}

// A NaN distance stays NaN; its neighbours are unaffected (phi(0) as mapped without the NaN).
// `centres`: the columns the basis maps (at least 2; the M a prepared basis was prepared for).
inline void check_nan_propagates(const Basis& basis, std::size_t centres = 2) {
  REQUIRE(centres >= 2);
  Matrix r2 = xt::zeros<double>({std::size_t(1), centres});
  r2(0, 0) = std::nan("");
  basis.map(r2);
  Matrix alone = xt::zeros<double>({std::size_t(1), centres});
  basis.map(alone);
  REQUIRE(std::isnan(r2(0, 0)));
  for (std::size_t j = 1; j < centres; ++j) REQUIRE(r2(0, j) == alone(0, j));
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
