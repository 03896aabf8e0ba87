// Radial functions shared by basis plugins (radial/numerics/radial_functions.hpp).
#include "radial/numerics/radial_functions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "radial/numerics/vector_math.hpp"

namespace radial {

void polyharmonic_log(Matrix& r2, unsigned k) {
  // log r^2 in one vectorised pass over the block, then 0.5 (r^2)^k times it.
  std::vector<double> logs(r2.data(), r2.data() + r2.size());
  log_in_place(logs.data(), logs.size());
  double* v = r2.data();
  for (std::size_t i = 0; i < logs.size(); ++i) {
    if (v[i] == 0) continue;  // the limit at r = 0
    double p = 0.5;
    for (unsigned j = 0; j < k; ++j) p *= v[i];
    v[i] = p * logs[i];
  }
}

void polyharmonic_log_derivative(const Matrix& r2, unsigned k, Matrix& dphi) {
  if (dphi.shape() != r2.shape()) dphi.resize({r2.shape(0), r2.shape(1)});
  std::vector<double> logs(r2.data(), r2.data() + r2.size());
  log_in_place(logs.data(), logs.size());
  const double* v = r2.data();
  double* out = dphi.data();
  for (std::size_t i = 0; i < logs.size(); ++i) {
    if (v[i] == 0) {
      out[i] = 0;
      continue;
    }
    double p = 0.5;
    for (unsigned j = 1; j < k; ++j) p *= v[i];
    out[i] = p * (double(k) * logs[i] + 1.0);
  }
}

QuadricShift::QuadricShift(double c) : c_(c), c2_(c * c), scaled_(!std::isnormal(c * c)) {}

void QuadricShift::power(Matrix& r2, int beta) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i) {
      const double root = std::hypot(std::sqrt(std::max(v[i], 0.0)), c_);
      v[i] = beta > 0 ? root : 1.0 / root;
    }
    return;
  }
  if (beta > 0)
    for (std::size_t i = 0; i < n; ++i) v[i] = std::sqrt(v[i] + c2_);
  else
    for (std::size_t i = 0; i < n; ++i) v[i] = 1.0 / std::sqrt(v[i] + c2_);
}

void QuadricShift::log_power(Matrix& r2, int beta) const {
  double* v = r2.data();
  const std::size_t n = r2.size();
  if (scaled_) {
    for (std::size_t i = 0; i < n; ++i) {
      const double log_root = std::log(std::hypot(std::sqrt(std::max(v[i], 0.0)), c_));
      v[i] = beta > 0 ? log_root : -log_root;
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i) v[i] += c2_;
  log_in_place(v, n);
  const double half_beta = 0.5 * beta;
  for (std::size_t i = 0; i < n; ++i) v[i] *= half_beta;
}

void QuadricShift::power_derivative(const Matrix& phi, int beta, Matrix& dphi) const {
  if (dphi.shape() != phi.shape()) dphi.resize({phi.shape(0), phi.shape(1)});
  const double* p = phi.data();
  double* out = dphi.data();
  for (std::size_t i = 0; i < phi.size(); ++i)
    out[i] = beta > 0 ? 0.5 / p[i] : -0.5 * p[i] * p[i] * p[i];
}

}  // namespace radial
