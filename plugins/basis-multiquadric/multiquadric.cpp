#include "multiquadric.hpp"

namespace radial::plugins {

ParamSpec multiquadric_c_param() {
  return ParamSpec::real("c", 1.0,
                         "shape parameter c of sqrt(r^2 + c^2), in input units; at most 1e100, "
                         "since phi >= c and the output fit sums phi^2 over the rows")
      .above(0.0)
      .at_most(1e100);
}

MultiquadricOptions multiquadric_options(const Params& params) { return {params.real("c")}; }

// c itself, not sqrt(c^2): c^2 may under- or overflow where c does not.
State MultiquadricBasis::state() const { return {{"c", shift_.c()}}; }

void MultiquadricBasis::load_state(const State& state) {
  shift_ = QuadricShift(state_param(state, multiquadric_c_param(), "basis multiquadric"));
}

}  // namespace radial::plugins
