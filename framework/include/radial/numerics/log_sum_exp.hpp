#pragma once
// Log-sum-exp and softmax, safe for any finite input (the row maximum is subtracted first);
// -inf entries are allowed and contribute 0.

#include <cmath>
#include <limits>

#include "radial/core/types.hpp"

namespace radial {

// out[n] = log sum_k exp(a[n, k]); a row of all -inf gives -inf.
Vector log_sum_exp_rows(const Matrix& a);

// a[n, :] <- softmax(a[n, :]) in place. A row of all -inf becomes uniform (the limit of equal
// activations); a row with +inf entries shares the mass equally among them.
void softmax_rows(Matrix& a);

// a[n, :] <- a[n, :] - log_sum_exp(a[n, :]) in place (log of the softmax, same limits).
void log_softmax_rows(Matrix& a);

// log v, or -inf when v <= 0: the log of a weight or probability that may be exactly 0 (an empty
// component), never NaN.
inline double log_or_minus_inf(double v) {
  return v > 0 ? std::log(v) : -std::numeric_limits<double>::infinity();
}

// log(1 + exp(x)) without overflow, and the logistic sigmoid without overflow.
double log1p_exp(double x);
double sigmoid(double x);

}  // namespace radial
