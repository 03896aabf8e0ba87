#include "radial/training/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"

namespace radial {

Metrics compute_metrics(const Matrix& outputs, Link link, const Dataset& data) {
  const std::size_t n = data.rows();
  if (outputs.shape(0) != n) {
    throw ShapeError("metrics: " + std::to_string(outputs.shape(0)) + " output rows for " +
                     std::to_string(n) + " data rows");
  }
  MetricsAccumulator sums(link, data);
  sums.add(0, outputs);
  return sums.result();
}

MetricsAccumulator::MetricsAccumulator(Link link, const Dataset& data)
    : link_(link), data_(data) {}

void MetricsAccumulator::add(std::size_t first, const Matrix& outputs) {
  const std::size_t rows = outputs.shape(0), n = data_.rows();
  if (first != next_ || rows > n - first) {
    throw ShapeError("metrics: output rows [" + std::to_string(first) + ", " +
                     std::to_string(first + rows) + ") do not continue at row " +
                     std::to_string(next_) + " of " + std::to_string(n) + " data rows");
  }
  next_ = first + rows;
  const std::size_t k = outputs.shape(1);
  if (data_.task == Task::Regression) {
    for (std::size_t i = 0; i < rows; ++i) {
      const double t = data_.values(first + i), r = outputs(i, 0) - t;
      sse_ += r * r;
      sum_t_ += t;
      sum_tt_ += t * t;
    }
    return;
  }
  if (k != data_.num_classes) {
    throw ShapeError("metrics: the network has " + std::to_string(k) + " outputs but the data has " +
                     std::to_string(data_.num_classes) + " classes");
  }
  const bool probabilities = gives_probabilities(link_);
  for (std::size_t i = 0; i < rows; ++i) {
    const auto t = static_cast<std::size_t>(data_.classes(first + i));
    std::size_t best = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const double y = outputs(i, j);
      if (y > outputs(i, best)) best = j;
      const double r = y - (j == t ? 1.0 : 0.0);
      sse_ += r * r;
    }
    if (best != t) ++wrong_;
    if (probabilities) ce_ -= std::log(std::max(outputs(i, t), 1e-300));
  }
}

Metrics MetricsAccumulator::result() const {
  const std::size_t local = data_.rows();
  if (next_ != local) {
    throw ShapeError("metrics: outputs for " + std::to_string(next_) + " of " +
                     std::to_string(local) + " data rows");
  }
  // This rank's sums, then all ranks' (no-ops with one rank: the sums are used as they are).
  std::uint64_t counts[2] = {local, wrong_};
  double sums[4] = {sse_, ce_, sum_t_, sum_tt_};
  if (collectives().size() > 1) {
    collectives().sum(counts, 2);
    collectives().sum(sums, 4);
  }
  const std::size_t n = std::size_t(counts[0]), wrong = std::size_t(counts[1]);
  Metrics m;
  m.rows = n;
  m.mse = n ? sums[0] / double(n) : 0.0;
  if (data_.task == Task::Regression) {
    const double spread = n ? sums[3] - sums[2] * sums[2] / double(n) : 0.0;
    m.r2 = spread > 0 ? 1.0 - sums[0] / spread : 0.0;
    return m;
  }
  m.misclassified = wrong;
  m.error_rate = n ? double(wrong) / double(n) : 0.0;
  if (gives_probabilities(link_)) m.cross_entropy = n ? sums[1] / double(n) : 0.0;
  return m;
}

std::optional<double> adjusted_r2(const Metrics& m, std::size_t parameters) {
  if (!m.r2 || m.rows <= parameters + 1) return std::nullopt;
  const double n = double(m.rows);
  return 1.0 - (1.0 - *m.r2) * (n - 1.0) / (n - double(parameters) - 1.0);
}

}  // namespace radial
