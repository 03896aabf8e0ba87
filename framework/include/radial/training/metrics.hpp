#pragma once
// Metrics of a trained network on a data set, as `radial evaluate` and the reports give them.

#include <cstddef>
#include <optional>

#include "radial/core/dataset.hpp"
#include "radial/network/link.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct Metrics {
  std::size_t rows = 0;
  // Rows left out for a missing target (by the data's missing policy), not among `rows`; in
  // the JSON only when there were some.
  std::size_t missing_targets = 0;
  // Computed on a sample of `rows` of this many rows (0: on all of them); in the JSON only then.
  std::size_t sample_of = 0;
  // Classification only:
  std::optional<double> error_rate;         // misclassified / rows
  std::optional<std::size_t> misclassified;
  // Mean over rows of -log p(true class | x); only when the outputs are probabilities
  // (logistic, softmax, Bayes links). Probabilities are floored at 1e-300 so it stays finite.
  std::optional<double> cross_entropy;
  // Mean over rows of sum_k (y_k - t_k)^2, t the 1-of-K coding (classification) or the target
  // value (regression).
  double mse = 0;
  // Regression only: R^2 = 1 - SSE / sum (t - mean t)^2 (0 when the targets are constant).
  std::optional<double> r2;
};

// Adjusted R^2 = 1 - (1 - R^2) (N - 1) / (N - p - 1) of a model with p parameters besides the
// bias (an RBF network: its M centres' weights); empty without R^2 or when N <= p + 1.
std::optional<double> adjusted_r2(const Metrics& m, std::size_t parameters);

// Under a ShardedScope (radial/distributed/collectives.hpp) `data` and the outputs are this rank's
// rows and the metrics are those of all ranks' rows: the error count, squared errors and
// cross-entropy are summed over ranks in rank order. Every rank must then call compute_metrics /
// result().

// outputs: as Network::predict returns them (N x K probabilities or N x outputs linear values).
Metrics compute_metrics(const Matrix& outputs, Link link, const Dataset& data);

// compute_metrics over consecutive row blocks of the outputs, so that the N x K outputs never
// have to be held: add() the blocks in row order, then result(). The sums run over the rows in
// the same order as compute_metrics, so the metrics are bit-identical to it.
class MetricsAccumulator {
 public:
  // `data` must outlive the accumulator.
  MetricsAccumulator(Link link, const Dataset& data);
  // Outputs of rows [first, first + outputs.shape(0)); `first` must be where the previous
  // block ended (ShapeError otherwise, or when the column count does not fit the data).
  void add(std::size_t first, const Matrix& outputs);
  // ShapeError unless the blocks covered every row of the data. Collective when sharded.
  Metrics result() const;

 private:
  Link link_;
  const Dataset& data_;
  std::size_t next_ = 0, wrong_ = 0;
  double sse_ = 0, ce_ = 0, sum_t_ = 0, sum_tt_ = 0;
};

}  // namespace radial
