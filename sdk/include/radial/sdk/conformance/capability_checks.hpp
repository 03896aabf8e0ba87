#pragma once
// The capabilities a plugin declares at registration (radial/plugin/loader.hpp's Capabilities), which
// the trainer reads before it makes the component, against the answers of an instance made from
// the same parameters (radial/sdk/conformance.hpp).

#include <string>

#include "radial/core/polynomial_term.hpp"
#include "radial/sdk/conformance/fixtures.hpp"

namespace radial::conformance {
namespace detail {

inline void check_capabilities(const Registry& registry, const ComponentInfo& info,
                               const Params& params, Runner& runner) {
  const std::string check = std::string(to_string(info.slot)) + "/capabilities";
  runner.run(check, [&] {
    const Capabilities declared = registry.capabilities(info.slot, info.id, params);
    const auto agree = [&](const char* name, bool said, bool does) {
      if (said != does)
        runner.fail(check, std::string("the registration declares ") + name + " = " +
                               (said ? "true" : "false") + ", but the instance answers " +
                               (does ? "true" : "false") + "; declare what the class does " +
                               "(radial/sdk/plugin.hpp)");
    };
    switch (info.slot) {
      case Slot::Basis: {
        const auto basis = registry.make_basis(info.id, params);
        agree("density", declared.density, basis->density());
        agree("gaussian_activation", declared.gaussian_activation, basis->gaussian_activation());
        agree("width_scale_selectable", declared.width_scale_selectable,
              basis->width_scale_selectable());
        // The trainer reads a polynomial term's degree from the framework's parameter.
        const std::int64_t degree = basis->polynomial() ? basis->polynomial()->degree() : -1;
        if (degree != polynomial_degree(params.values()))
          runner.fail(check, "polynomial() has degree " + std::to_string(degree) +
                                 " but the parameter " + polynomial_param + " says " +
                                 std::to_string(polynomial_degree(params.values())) +
                                 "; declare the term with sdk::add_polynomial_param");
        break;
      }
      case Slot::Centres:
        agree("uses_basis", declared.uses_basis,
              registry.make_centre_learner(info.id, params)->uses_basis());
        break;
      case Slot::Output: {
        const auto layer = registry.make_output_layer(info.id, params);
        agree("selectable", declared.selectable, layer->selectable());
        agree("least_squares", declared.least_squares, layer->least_squares());
        agree("side_conditions", declared.side_conditions, layer->side_conditions());
        break;
      }
      default: break;  // nothing declared for the other slots
    }
  });
}

}  // namespace detail
}  // namespace radial::conformance
