#include "inverse_multiquadric.hpp"

namespace radial::plugins {

OptionTable<InverseMultiquadricOptions> inverse_multiquadric_table() {
  OptionTable<InverseMultiquadricOptions> t;
  t.bind("c", &InverseMultiquadricOptions::c,
         "shape parameter c of 1 / sqrt(r^2 + c^2), in input units; at least 1e-100, since "
         "phi <= 1/c and the output fit sums phi^2 over the rows")
      .at_least(1e-100);
  return t;
}

// c itself, not sqrt(c^2): c^2 may under- or overflow where c does not.
State InverseMultiquadricBasis::state() const { return {{"c", shift_.c()}}; }

void InverseMultiquadricBasis::load_state(const State& state) {
  shift_ = QuadricShift(
      state_param(state, inverse_multiquadric_table().params().front(), "basis inverse-multiquadric"));
}

}  // namespace radial::plugins
