// Missing cells as the numerics meet them (radial/numerics/missing_cells.hpp).
#include "radial/numerics/missing_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/core/errors.hpp"

namespace radial {

bool has_missing(const Matrix& inputs) {
  const double* v = inputs.data();
  bool found = false;
  for (std::size_t i = 0, n = inputs.size(); i < n && !found; ++i) found = std::isnan(v[i]);
  // Sharded: every rank takes the same branch after this (collective).
  if (collectives().size() > 1) found = max_over_ranks(found ? 1.0 : 0.0) != 0.0;
  return found;
}

Vector observed_means(const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  Vector fill = Vector::from_shape({d});
  std::fill(fill.begin(), fill.end(), 0.0);
  if (collectives().size() > 1) {
    // Per column, the sum over observed cells in row order, continued rank after rank (one
    // process's sum to the bit), and the count of observed cells.
    std::vector<std::uint64_t> count(d, 0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < d; ++j) count[j] += std::isnan(inputs(i, j)) ? 0 : 1;
    collectives().sum(count.data(), d);
    std::vector<double> sum(d, 0.0);
    chain_over_ranks(sum, [&](std::vector<double>& total) {
      for (std::size_t j = 0; j < d; ++j)
        for (std::size_t i = 0; i < n; ++i)
          if (!std::isnan(inputs(i, j))) total[j] += inputs(i, j);
    });
    for (std::size_t j = 0; j < d; ++j)
      if (count[j] != 0) fill(j) = sum[j] / double(count[j]);
    return fill;
  }
  for (std::size_t j = 0; j < d; ++j) {
    double sum = 0.0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(inputs(i, j))) {
        sum += inputs(i, j);
        ++count;
      }
    if (count != 0) fill(j) = sum / double(count);
  }
  return fill;
}

void impute(Matrix& inputs, const Vector& fill) {
  if (fill.size() == 0) return;
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (fill.size() != d)
    throw ShapeError("impute: " + std::to_string(fill.size()) + " values for " + std::to_string(d) +
                     " columns");
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < d; ++j)
      if (std::isnan(inputs(i, j))) inputs(i, j) = fill(j);
}

Matrix mean_imputed(const Matrix& inputs) {
  Matrix out = inputs;
  if (has_missing(inputs)) impute(out, observed_means(inputs));
  return out;
}

}  // namespace radial
