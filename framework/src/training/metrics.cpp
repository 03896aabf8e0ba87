#include "radial/metrics.hpp"

#include <algorithm>
#include <cmath>

#include "radial/errors.hpp"

namespace radial {

Metrics compute_metrics(const Matrix& outputs, Link link, const Dataset& data) {
  const std::size_t n = data.rows();
  if (outputs.shape(0) != n) {
    throw ShapeError("metrics: " + std::to_string(outputs.shape(0)) + " output rows for " +
                     std::to_string(n) + " data rows");
  }
  Metrics m;
  m.rows = n;
  const std::size_t k = outputs.shape(1);
  if (data.task == Task::Regression) {
    double sse = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = outputs(i, 0) - data.values(i);
      sse += r * r;
    }
    m.mse = n ? sse / double(n) : 0.0;
    return m;
  }
  if (k != data.num_classes) {
    throw ShapeError("metrics: the network has " + std::to_string(k) + " outputs but the data has " +
                     std::to_string(data.num_classes) + " classes");
  }
  const bool probabilities = link != Link::Identity;
  std::size_t wrong = 0;
  double sse = 0, ce = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto t = static_cast<std::size_t>(data.classes(i));
    std::size_t best = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const double y = outputs(i, j);
      if (y > outputs(i, best)) best = j;
      const double r = y - (j == t ? 1.0 : 0.0);
      sse += r * r;
    }
    if (best != t) ++wrong;
    if (probabilities) ce -= std::log(std::max(outputs(i, t), 1e-300));
  }
  m.misclassified = wrong;
  m.error_rate = n ? double(wrong) / double(n) : 0.0;
  m.mse = n ? sse / double(n) : 0.0;
  if (probabilities) m.cross_entropy = n ? ce / double(n) : 0.0;
  return m;
}

}  // namespace radial
