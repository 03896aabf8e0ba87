// Log-sum-exp and softmax by subtracting the row maximum, with the exponentials of the whole
// matrix taken in one vectorised pass. Rows whose maximum is not finite are handled as limits:
//   all -inf  -> log-sum-exp -inf, softmax uniform (the limit of equal activations)
//   some +inf -> log-sum-exp +inf, softmax shared equally by the +inf entries
//   any NaN   -> NaN (the input is already broken; it is propagated, not hidden)
#include "radial/numerics/log_sum_exp.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "radial/numerics/vector_math.hpp"

namespace radial {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

enum class RowKind { Finite, AllMinusInf, PlusInf, NaN };

struct RowMax {
  double max = -inf;
  RowKind kind = RowKind::Finite;
  std::size_t plus_inf = 0;  // number of +inf entries
};

RowMax row_max(const double* row, std::size_t k) {
  RowMax r;
  for (std::size_t i = 0; i < k; ++i) {
    const double v = row[i];
    if (std::isnan(v)) {
      r.kind = RowKind::NaN;
      return r;
    }
    if (v == inf) ++r.plus_inf;
    if (v > r.max) r.max = v;
  }
  if (r.plus_inf) r.kind = RowKind::PlusInf;
  else if (r.max == -inf) r.kind = RowKind::AllMinusInf;
  return r;
}

// e(n, :) = exp(a(n, :) - max_n) for finite rows (0 elsewhere); returns each row's description.
std::vector<RowMax> shifted_exponentials(const Matrix& a, Matrix& e) {
  const std::size_t n = a.shape(0), k = a.shape(1);
  e.resize({n, k});
  std::vector<RowMax> rows(n);
  for (std::size_t row = 0; row < n; ++row) {
    const double* in = a.data() + row * k;
    double* out = e.data() + row * k;
    rows[row] = row_max(in, k);
    if (rows[row].kind == RowKind::Finite) {
      const double m = rows[row].max;
      for (std::size_t i = 0; i < k; ++i) out[i] = in[i] - m;
    } else {
      for (std::size_t i = 0; i < k; ++i) out[i] = -inf;
    }
  }
  exp_in_place(e);
  return rows;
}

}  // namespace

Vector log_sum_exp_rows(const Matrix& a) {
  const std::size_t n = a.shape(0), k = a.shape(1);
  Matrix e;
  const std::vector<RowMax> rows = shifted_exponentials(a, e);
  Vector out = Vector::from_shape({n});
  for (std::size_t row = 0; row < n; ++row) {
    const double* er = e.data() + row * k;
    double sum = 0;
    for (std::size_t i = 0; i < k; ++i) sum += er[i];
    out(row) = sum;
  }
  log_in_place(out);
  for (std::size_t row = 0; row < n; ++row) {
    switch (rows[row].kind) {
      case RowKind::Finite: out(row) += rows[row].max; break;
      case RowKind::AllMinusInf: out(row) = -inf; break;
      case RowKind::PlusInf: out(row) = inf; break;
      case RowKind::NaN: out(row) = nan; break;
    }
  }
  return out;
}

void softmax_rows(Matrix& a) {
  const std::size_t n = a.shape(0), k = a.shape(1);
  Matrix e;
  const std::vector<RowMax> rows = shifted_exponentials(a, e);
  for (std::size_t row = 0; row < n; ++row) {
    double* out = a.data() + row * k;
    const double* er = e.data() + row * k;
    const RowMax& r = rows[row];
    switch (r.kind) {
      case RowKind::Finite: {
        double sum = 0;
        for (std::size_t i = 0; i < k; ++i) sum += er[i];
        const double scale = 1.0 / sum;  // sum >= 1: the maximum contributes exp(0)
        for (std::size_t i = 0; i < k; ++i) out[i] = er[i] * scale;
        break;
      }
      case RowKind::AllMinusInf:
        for (std::size_t i = 0; i < k; ++i) out[i] = 1.0 / double(k);
        break;
      case RowKind::PlusInf:
        for (std::size_t i = 0; i < k; ++i) out[i] = out[i] == inf ? 1.0 / double(r.plus_inf) : 0.0;
        break;
      case RowKind::NaN:
        for (std::size_t i = 0; i < k; ++i) out[i] = nan;
        break;
    }
  }
}

void log_softmax_rows(Matrix& a) {
  const std::size_t n = a.shape(0), k = a.shape(1);
  const Vector lse = log_sum_exp_rows(a);
  for (std::size_t row = 0; row < n; ++row) {
    double* out = a.data() + row * k;
    const double l = lse(row);
    if (std::isfinite(l)) {
      for (std::size_t i = 0; i < k; ++i) out[i] -= l;
    } else if (l == -inf) {
      // all -inf: the uniform limit, as softmax_rows
      for (std::size_t i = 0; i < k; ++i) out[i] = -std::log(double(k));
    } else if (l == inf) {
      std::size_t count = 0;
      for (std::size_t i = 0; i < k; ++i) count += out[i] == inf;
      for (std::size_t i = 0; i < k; ++i) out[i] = out[i] == inf ? -std::log(double(count)) : -inf;
    } else {
      for (std::size_t i = 0; i < k; ++i) out[i] = nan;
    }
  }
}

double log1p_exp(double x) {
  // log(1 + e^x) = x + log(1 + e^-x) for x > 0, so exp never overflows.
  if (x > 0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

double sigmoid(double x) {
  if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}

}  // namespace radial
