// 1-of-K targets and row selection.
#include "radial/core/dataset.hpp"

#include <algorithm>
#include <charconv>

#include "radial/core/errors.hpp"

namespace radial {

std::string class_label(const std::vector<double>& class_values,
                        const std::vector<std::string>& class_names, std::size_t k) {
  if (!class_names.empty()) return class_names.at(k);
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, class_values.at(k));
  return std::string(text, result.ptr);
}

Matrix one_of_k(const Labels& classes, std::size_t num_classes) {
  Matrix t = xt::zeros<double>({classes.size(), num_classes});
  for (std::size_t n = 0; n < classes.size(); ++n) {
    const std::int64_t k = classes(n);
    if (k < 0 || std::size_t(k) >= num_classes)
      throw ShapeError("one_of_k: row " + std::to_string(n) + " has class index " +
                       std::to_string(k) + ", outside 0.." + std::to_string(num_classes) +
                       " (exclusive); the labels and the number of classes disagree");
    t(n, std::size_t(k)) = 1.0;
  }
  return t;
}

Dataset select_rows(const Dataset& data, const std::vector<std::size_t>& index) {
  const std::size_t n = data.rows(), d = data.inputs.dimension() == 2 ? data.features() : 0;
  Dataset out;
  out.task = data.task;
  out.num_classes = data.num_classes;
  out.class_values = data.class_values;
  out.class_names = data.class_names;
  out.feature_names = data.feature_names;
  out.coding = data.coding;
  out.target_name = data.target_name;
  out.source = data.source;
  out.inputs = Matrix::from_shape({index.size(), d});
  const bool has_classes = data.classes.size() == n && n != 0;
  const bool has_values = data.values.size() == n && n != 0;
  if (has_classes) out.classes = Labels::from_shape({index.size()});
  if (has_values) out.values = Vector::from_shape({index.size()});
  for (std::size_t i = 0; i < index.size(); ++i) {
    const std::size_t row = index[i];
    if (row >= n)
      throw ShapeError("select_rows: index " + std::to_string(i) + " asks for row " +
                       std::to_string(row) + " of " + data.source + ", which has " +
                       std::to_string(n) + " rows");
    std::copy_n(data.inputs.data() + row * d, d, out.inputs.data() + i * d);
    if (has_classes) out.classes(i) = data.classes(row);
    if (has_values) out.values(i) = data.values(row);
  }
  return out;
}

}  // namespace radial
