#include "multiquadric.hpp"

namespace radial::plugins {

OptionTable<MultiquadricOptions> multiquadric_table() {
  OptionTable<MultiquadricOptions> t;
  t.bind("c", &MultiquadricOptions::c,
         "shape parameter c of sqrt(r^2 + c^2), in input units; at most 1e100, since phi >= c "
         "and the output fit sums phi^2 over the rows")
      .above(0.0)
      .at_most(1e100);
  return t;
}

// c itself, not sqrt(c^2): c^2 may under- or overflow where c does not.
State MultiquadricBasis::state() const { return {{"c", shift_.c()}}; }

void MultiquadricBasis::load_state(const State& state) {
  shift_ = QuadricShift(state_param(state, multiquadric_table().params().front(), "basis multiquadric"));
}

}  // namespace radial::plugins
