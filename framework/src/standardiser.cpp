#include "radial/standardiser.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "radial/errors.hpp"

namespace radial {

std::size_t Standardiser::fit(const Matrix& inputs) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (n == 0 || d == 0) {
    throw ShapeError("standardiser: cannot fit on " + std::to_string(n) + " rows x " +
                     std::to_string(d) + " columns; give it the training inputs");
  }
  // Two passes over rows (row-major order): the mean, then the squared deviations, which is
  // stabler than accumulating sums of squares.
  Vector sums = xt::zeros<double>({d});
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = &inputs(i, 0);
    for (std::size_t j = 0; j < d; ++j) sums(j) += row[j];
  }
  for (std::size_t j = 0; j < d; ++j) sums(j) /= static_cast<double>(n);
  mean = std::move(sums);

  Vector squares = xt::zeros<double>({d});
  std::vector<bool> constant(d, true);
  const double* first = &inputs(0, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = &inputs(i, 0);
    for (std::size_t j = 0; j < d; ++j) {
      const double deviation = row[j] - mean(j);
      squares(j) += deviation * deviation;
      if (row[j] != first[j]) constant[j] = false;
    }
  }

  // Population standard deviation (divide by N), as scikit-learn's StandardScaler. A column
  // whose values are all equal has deviations of rounding size only: it gets scale 1.
  scale = Vector::from_shape({d});
  std::size_t constants = 0;
  for (std::size_t j = 0; j < d; ++j) {
    const double sd = std::sqrt(squares(j) / static_cast<double>(n));
    if (constant[j] || !(sd > 0.0)) {
      // The value itself as the mean, so the column maps to exactly 0 (sum / N need not
      // reproduce it: three 0.1s average to 0.10000000000000002).
      if (constant[j]) mean(j) = first[j];
      scale(j) = 1.0;
      ++constants;
    } else {
      scale(j) = sd;
    }
  }
  return constants;
}

void Standardiser::apply(Matrix& inputs) const {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (!fitted()) throw ShapeError("standardiser: apply() called before fit()");
  if (d != mean.size()) {
    throw ShapeError("standardiser: the data has " + std::to_string(d) +
                     " input columns, but it was fitted on " + std::to_string(mean.size()) +
                     "; give the same input columns as in training");
  }
  for (std::size_t i = 0; i < n; ++i) {
    double* row = &inputs(i, 0);
    for (std::size_t j = 0; j < d; ++j) row[j] = (row[j] - mean(j)) / scale(j);
  }
}

}  // namespace radial
