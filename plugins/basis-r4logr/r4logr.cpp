#include "r4logr.hpp"

#include <cmath>
#include <vector>

#include <radial/numerics/vector_math.hpp>

namespace radial::plugins {

void R4LogRBasis::prepare(Centres&, FitContext&) {}

// phi(r) = r^4 log r = 0.5 (r^2)^2 log r^2, taken as 0 at r = 0 (its limit).
void R4LogRBasis::map(Matrix& r2) const {
  std::vector<double> logs(r2.data(), r2.data() + r2.size());
  log_in_place(logs.data(), logs.size());
  double* v = r2.data();
  for (std::size_t i = 0; i < logs.size(); ++i)
    v[i] = v[i] == 0 ? 0.0 : 0.5 * v[i] * v[i] * logs[i];  // NaN stays NaN
}

// map() depends on nothing but the distances.
State R4LogRBasis::state() const { return {}; }
void R4LogRBasis::load_state(const State&) {}

}  // namespace radial::plugins
