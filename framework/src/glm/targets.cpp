// Targets for a link (declared in radial/network/output_layer.hpp), whole or in row blocks.
#include "targets.hpp"

#include <algorithm>
#include <string>

#include "radial/core/errors.hpp"
#include "radial/network/output_layer.hpp"

namespace radial {

namespace glm::detail {

std::size_t target_columns(Link link, const Dataset& data) {
  const std::string where = data.source.empty() ? std::string("data") : data.source;
  const std::size_t n = data.rows();
  if (data.task == Task::Regression) {
    if (link != Link::Identity)
      throw InputError(where + ": link '" + to_string(link) +
                       "' needs class labels, but the task is regression; use link = "
                       "\"identity\" or set [data] task = \"classification\"");
    if (data.values.size() != n)
      throw ShapeError(where + ": " + std::to_string(data.values.size()) +
                       " target values for " + std::to_string(n) + " rows");
    return 1;
  }
  const std::size_t k = data.num_classes;
  if (link == Link::Identity || link == Link::Softmax) {
    if (link == Link::Softmax && k < 2)
      throw InputError(where + ": softmax outputs need at least 2 classes, found " +
                       std::to_string(k));
    return k;
  }
  if (link == Link::Logistic) {
    if (k != 2)
      throw InputError(where + ": the logistic link models 2 classes, found " +
                       std::to_string(k) + "; use link = \"softmax\" for " +
                       std::to_string(k) + " classes");
    return 1;
  }
  throw InputError(where + ": link '" + to_string(link) + "' has no regression targets; "
                   "targets are made for the links identity, logistic and softmax");
}

void fill_targets(Link link, const Dataset& data, std::size_t first, std::size_t count,
                  double* out) {
  if (data.task == Task::Regression) {
    std::copy_n(data.values.data() + first, count, out);
    return;
  }
  if (link == Link::Logistic) {
    for (std::size_t i = 0; i < count; ++i) out[i] = data.classes(first + i) == 1 ? 1.0 : 0.0;
    return;
  }
  // 1-of-K coding (one_of_k in radial/core/dataset.hpp), with its check of the class indices.
  const std::size_t k = data.num_classes;
  std::fill_n(out, count * k, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t c = data.classes(first + i);
    if (c < 0 || std::size_t(c) >= k)
      throw ShapeError("one_of_k: row " + std::to_string(first + i) + " has class index " +
                       std::to_string(c) + ", outside 0.." + std::to_string(k) +
                       " (exclusive); the labels and the number of classes disagree");
    out[i * k + std::size_t(c)] = 1.0;
  }
}

}  // namespace glm::detail

Matrix targets_for(Link link, const Dataset& data) {
  const std::size_t columns = glm::detail::target_columns(link, data);
  Matrix t = Matrix::from_shape({data.rows(), columns});
  glm::detail::fill_targets(link, data, 0, data.rows(), t.data());
  return t;
}

}  // namespace radial
