#include "radial/data/standardiser.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/core/text.hpp"

namespace radial {

namespace {

// What one pass over a column's values tells before its sums: the power-of-two shift that
// scales it into (-1, 1), whether every value is the same, and that value.
struct ColumnRanges {
  std::vector<int> shift;
  std::vector<bool> constant;
  std::vector<double> value;
};

// Sharded: a column is constant when its smallest and largest value over all ranks agree
// (the same test as "every value equals the first" for finite data); `value` is that value.
ColumnRanges column_ranges(const Matrix& inputs, Collectives& comm, bool sharded) {
  const std::size_t local = inputs.shape(0), d = inputs.shape(1);
  ColumnRanges c{std::vector<int>(d, 0), std::vector<bool>(d, true), std::vector<double>(d, 0.0)};
  std::vector<double> largest(d, 0.0);
  std::vector<double> low(d, std::numeric_limits<double>::infinity());
  std::vector<double> high(d, -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < local; ++i) {
    const double* row = &inputs(i, 0);
    for (std::size_t j = 0; j < d; ++j) {
      largest[j] = std::max(largest[j], std::fabs(row[j]));
      if (sharded) {
        low[j] = std::min(low[j], row[j]);
        high[j] = std::max(high[j], row[j]);
        // A missing cell makes the column not constant, as one process's test does.
        if (std::isnan(row[j])) {
          low[j] = -std::numeric_limits<double>::infinity();
          high[j] = std::numeric_limits<double>::infinity();
        }
      } else if (row[j] != inputs(0, j)) {
        c.constant[j] = false;
      }
    }
  }
  if (sharded) {
    comm.max(largest.data(), d);
    comm.min(low.data(), d);
    comm.max(high.data(), d);
    for (std::size_t j = 0; j < d; ++j) {
      c.constant[j] = low[j] == high[j];
      c.value[j] = low[j];
    }
  } else {
    for (std::size_t j = 0; j < d; ++j) c.value[j] = inputs(0, j);
  }
  for (std::size_t j = 0; j < d; ++j) {
    if (largest[j] > 0.0) c.shift[j] = -(std::ilogb(largest[j]) + 1);
  }
  return c;
}

// Two passes over rows (row-major order): the scaled mean, then the sum of squared deviations
// from it, which is stabler than accumulating sums of squares.
// Sharded, each sum continues from the previous rank's running sum (chain_over_ranks): the
// same left-to-right sum over rows as one process, bit for bit, for any shard layout.
// Missing cells (NaN, [data] missing = "em") are left out of a column's sums and count (the
// counts summed over ranks); a column without one sums every row, as complete data do.
void scaled_moments(const Matrix& inputs, const std::vector<int>& shift,
                    const std::vector<double>& observed, bool missing,
                    std::vector<double>& scaled_mean, std::vector<double>& squares) {
  const std::size_t local = inputs.shape(0), d = inputs.shape(1);
  scaled_mean.assign(d, 0.0);
  chain_over_ranks(scaled_mean, [&](std::vector<double>& sum) {
    for (std::size_t i = 0; i < local; ++i) {
      const double* row = &inputs(i, 0);
      if (missing) {
        for (std::size_t j = 0; j < d; ++j)
          if (!std::isnan(row[j])) sum[j] += std::ldexp(row[j], shift[j]);
        continue;
      }
      for (std::size_t j = 0; j < d; ++j) sum[j] += std::ldexp(row[j], shift[j]);
    }
  });
  for (std::size_t j = 0; j < d; ++j)
    scaled_mean[j] = observed[j] > 0 ? scaled_mean[j] / observed[j] : 0.0;

  squares.assign(d, 0.0);
  chain_over_ranks(squares, [&](std::vector<double>& sum) {
    for (std::size_t i = 0; i < local; ++i) {
      const double* row = &inputs(i, 0);
      for (std::size_t j = 0; j < d; ++j) {
        const double deviation = std::ldexp(row[j], shift[j]) - scaled_mean[j];
        if (missing && std::isnan(deviation)) continue;
        sum[j] += deviation * deviation;
      }
    }
  });
}

}  // namespace

std::size_t Standardiser::fit(const Matrix& inputs) {
  // Under a ShardedScope `inputs` are this rank's rows (radial/distributed/collectives.hpp); the
  // extremes are combined over ranks and the sums continued rank after rank, so the statistics are
  // the single-process ones to the last bit; with one rank the collectives are no-ops.
  Collectives& comm = collectives();
  const bool sharded = comm.size() > 1;
  const std::size_t local = inputs.shape(0), d = inputs.shape(1);
  const std::size_t n = sharded ? std::size_t(count_over_ranks(local)) : local;
  if (n == 0 || d == 0) {
    throw ShapeError("standardiser: cannot fit on " + std::to_string(n) + " rows x " +
                     std::to_string(d) + " columns; give it the training inputs");
  }
  // Every pass works on x * 2^shift(j), with 2^-shift(j) just above the column's largest |x|:
  // scaled values lie in (-1, 1), so no sum or square overflows (unscaled, values near 1e300
  // give an infinite scale) or underflows (values near 1e-200), and scaling by a power of two is
  // exact, so ordinary data get the same bits as unscaled sums.
  const ColumnRanges ranges = column_ranges(inputs, comm, sharded);
  const std::vector<int>& shift = ranges.shift;
  const bool missing = has_missing(inputs);  // over every rank's rows (collective)
  std::vector<double> observed(d, static_cast<double>(n));
  if (missing) {
    const std::vector<std::uint64_t> counts = observed_counts(inputs);  // collective
    for (std::size_t j = 0; j < d; ++j) observed[j] = static_cast<double>(counts[j]);
  }
  std::vector<double> scaled_mean, squares;
  scaled_moments(inputs, shift, observed, missing, scaled_mean, squares);

  // Population standard deviation (divide by N), as scikit-learn's StandardScaler. A column
  // whose values are all equal has deviations of rounding size only: it gets scale 1.
  mean = Vector::from_shape({d});
  scale = Vector::from_shape({d});
  std::size_t constants = 0;
  for (std::size_t j = 0; j < d; ++j) {
    mean(j) = std::ldexp(scaled_mean[j], -shift[j]);
    const double sd =
        observed[j] > 0 ? std::ldexp(std::sqrt(squares[j] / observed[j]), -shift[j]) : 0.0;
    if (ranges.constant[j] || !(sd > 0.0)) {
      // The value itself as the mean, so the column maps to exactly 0 (sum / N need not
      // reproduce it: three 0.1s average to 0.10000000000000002).
      if (ranges.constant[j]) mean(j) = ranges.value[j];
      scale(j) = 1.0;
      ++constants;
    } else {
      scale(j) = sd;
    }
    // Bounded by the largest |x| (finite): a failure here is a bug, not bad data.
    if (!std::isfinite(mean(j)) || !std::isfinite(scale(j))) {
      throw NumericalError("standardiser: column " + std::to_string(j + 1) + " has mean " +
                           std::to_string(mean(j)) + " and scale " + std::to_string(scale(j)));
    }
  }
  return constants;
}

void Standardiser::scale_nominal_inputs(const InputCoding& coding) {
  if (coding.empty()) return;
  std::size_t column = 0;  // the first coded column of raw column c
  for (std::size_t c = 0; c < coding.raw_names.size(); ++c) {
    const NominalInput* nominal = coding.find(c);
    if (nominal == nullptr) {
      ++column;
      continue;
    }
    const std::size_t count = nominal->categories.size();
    if (column + count > mean.size()) {
      throw ShapeError("standardiser: the coding has more columns than the " +
                       std::to_string(mean.size()) + " it was fitted on");
    }
    // The means of 0/1 indicators are the categories' frequencies; sum p_k^2 is the chance
    // that two random rows share their category.
    double same = 0.0;
    for (std::size_t k = 0; k < count; ++k) same += mean(column + k) * mean(column + k);
    const double spread = 1.0 - same;
    const double s = spread > 1e-12 ? std::sqrt(spread) : 1.0;  // one category: constant
    for (std::size_t k = 0; k < count; ++k) scale(column + k) = s;
    column += count;
  }
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
    for (std::size_t j = 0; j < d; ++j) {
      const double difference = row[j] - mean(j);
      // x - mean overflows only for |x| near the largest double: halve both first.
      row[j] = std::isfinite(difference) ? difference / scale(j)
                                         : (row[j] / 2 - mean(j) / 2) / scale(j) * 2;
    }
  }
}

void check_unstandardised_range(const Dataset& data) {
  const std::size_t n = data.rows(), d = data.features();
  if (n == 0 || d == 0) return;
  // Squared distances between points sum d squares of differences up to 2 max|x|: they stay
  // finite while max|x| < sqrt(DBL_MAX / (4 d)).
  const double limit = std::sqrt(std::numeric_limits<double>::max() / (4.0 * double(d)));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < d; ++j) {
      const double value = data.inputs(i, j);
      if (std::isnan(value) || std::fabs(value) < limit) continue;  // NaN: a missing cell
      const std::string column =
          j < data.feature_names.size() ? "'" + data.feature_names[j] + "'" : std::to_string(j + 1);
      throw DataError(data.source + ": input column " + column + " holds " + text::number(value) +
                      " (data row " + std::to_string(i + 1) +
                      "); without standardisation, squared distances between such values "
                      "overflow a double (with " + std::to_string(d) + " features |x| must stay "
                      "below " + text::number(limit) +
                      "): set standardize = true in [data], or rescale the column");
    }
  }
}

}  // namespace radial
