#pragma once
// The conformance kit: checks every Radial plugin must pass, ours and third parties' (the idea of
// Ceres' manifold_test_utils.h and scikit-learn's check_estimator). Header-only; needs Catch2 v2
// and the framework library.
//
//   #include <radial/sdk/conformance.hpp>
//
//   TEST_CASE("my plugin conforms") {
//     // radial_add_plugin(... TEST_SOURCES ...) defines RADIAL_PLUGIN_FILE for the test.
//     radial::conformance::check_plugin(radial::conformance::plugin_under_test(), "my-id");
//   }
//
// What is checked, for the component `id` in whatever slot it registered:
//   parameters   every parameter has a name and a doc; defaults pass their own check; values just
//                outside each range, unknown choices, wrong types and unknown names are refused
//                by validate_params with a ParameterError; the component is made from defaults
//                (plus Options::params, which must supply any required parameter).
//   capabilities what the registration declares the component does (Capabilities: density,
//                gaussian_activation, width_scale_selectable; uses_basis; selectable,
//                least_squares, side_conditions) equals what an instance of the same
//                parameters answers; a basis's polynomial term has the degree of its
//                `polynomial` parameter.
//   basis        prepare twice equals prepare once; two instances agree; map is finite and works
//                block by block (row by row equals the whole block to 1e-13); log_map = log(map)
//                where provided; map_derivative = dphi/d(r^2) of map by central differences
//                (derivative_tolerance, relative) for every differentiable() basis;
//                state() survives the model store (serialize_state / deserialize_state) and
//                load_state() maps identically; an empty state is refused with a Radial error;
//                inconsistent centres are refused with a Radial error, never another exception.
//   centres      fitting twice with the same seed equals fitting once, and two instances agree
//                (every array of Centres, bit for bit); the result passes Centres::check() and
//                has the data's dimension; an empty data set is refused with a Radial error
//                (unless the learner ignores the data and returns the same centres). A learner
//                that uses the basis (uses_basis()) is fitted by fit_on_basis() with the kit's
//                unit Gaussian, and its centres must be candidates it placed the basis on.
//   output       the same determinism on weights and link; the link names a registered
//                prediction rule, weights are (M+1) x outputs and the rule accepts them for the
//                data's classes; design rows and target rows that differ are refused with a
//                Radial error.
//   weight-penalty  (each instance prepared on 3 centres in the plane under a unit Gaussian
//                basis, W 4 x 2) determinism; penalty, gradient and Hessian agree with central
//                finite differences; add_hessian_product adds H V with H from add_hessian;
//                add_gradient / add_hessian add (never overwrite); a gradient or Hessian of the
//                wrong shape is refused with a Radial error.
//   kernel-prior determinism; -log p(theta) and the distances D_jk are finite, D_jk >= 0 and
//                M x K; add_mean_terms / add_mixing_terms add (never overwrite); the mixing
//                terms of every kernel sum to 0 over the classes (eq 31 of Constantinopoulos et
//                al. 2001); the mean-term weights are >= 0.
//
// run_checks() returns the findings without touching Catch (so the kit can test itself);
// check_plugin() turns each finding into a failed Catch check. The kit lives in conformance/:
// report.hpp (options, findings), fixtures.hpp (runner, data, reference components, parameter
// checks), one <slot>_checks.hpp per slot, run_checks.hpp; this header is the Catch2 front end.

#include <catch2/catch.hpp>

#include "radial/sdk/conformance/run_checks.hpp"

namespace radial::conformance {

#ifdef RADIAL_PLUGIN_FILE
// The plugin this test was built for (radial_add_plugin's TEST_SOURCES), loaded once, as the
// host would load it.
inline const Registry& plugin_under_test() {
  static Registry registry;
  static const bool loaded = (registry.load_file(RADIAL_PLUGIN_FILE), true);
  (void)loaded;
  return registry;
}
#endif

// Catch2 front end: one failed check per finding, labelled with the plugin and the check.
inline void check_plugin(const Registry& registry, const std::string& id,
                         const Options& options = {}) {
  const Report report = run_checks(registry, id, options);
  INFO(report.str());
  for (const auto& finding : report.findings) {
    FAIL_CHECK(to_string(report.slot) << " plugin '" << report.id << "' fails " << finding.check
                                      << ": " << finding.message);
  }
  CHECK(report.ok());
}

}  // namespace radial::conformance
