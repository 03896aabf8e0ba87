// NumPy arrays in and out. The framework's Matrix owns row-major storage, so X is copied once
// (any strides: C- or F-ordered or sliced); the trainer standardises that copy in place.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "bindings.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/errors.hpp"

namespace radial::python {
namespace {

py::array checked(const py::handle& object, const std::string& name, int ndim) {
  if (!py::isinstance<py::array>(object)) {
    throw InputError(name + " is a " + std::string(py::str(object.get_type().attr("__name__"))) +
                     ", not a NumPy array; pass numpy.asarray(" + name + ", dtype=numpy.float64)");
  }
  py::array array = py::reinterpret_borrow<py::array>(object);
  if (!array.dtype().is(py::dtype::of<double>())) {
    throw InputError(name + " has dtype " + std::string(py::str(array.dtype())) +
                     "; Radial reads float64 only: pass " + name + ".astype(numpy.float64)");
  }
  if (array.ndim() != ndim) {
    throw ShapeError(name + " has " + std::to_string(array.ndim()) + " dimension(s), " +
                     (ndim == 2 ? "not 2 (rows x features); reshape a single feature with " + name +
                                      ".reshape(-1, 1)"
                                : "not 1 (one target value per row)"));
  }
  return array;
}

void finite(double value, const std::string& name, const std::string& index) {
  if (!std::isfinite(value)) {
    if (std::isnan(value)) {
      throw DataError(name + index + " is NaN, a missing value, which this model or pipeline "
                      "does not read: train with missing=\"mean\", \"median\" or \"em\" (the "
                      "estimators' parameter; [data] missing in a pipeline), or impute the value "
                      "or remove the row");
    }
    throw DataError(name + index + " is infinite; Inf is not allowed: impute the value or "
                    "remove the row");
  }
}

}  // namespace

Matrix to_matrix(const py::handle& object, const std::string& name, bool allow_nan) {
  const py::array array = checked(object, name, 2);
  const auto rows = static_cast<std::size_t>(array.shape(0));
  const auto cols = static_cast<std::size_t>(array.shape(1));
  if (rows == 0 || cols == 0) {
    throw ShapeError(name + " has shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                     "); it needs at least one row and one feature");
  }
  Matrix out = Matrix::from_shape({rows, cols});
  const char* base = static_cast<const char*>(array.data());
  const auto s0 = array.strides(0), s1 = array.strides(1);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double v =
          *reinterpret_cast<const double*>(base + s0 * py::ssize_t(i) + s1 * py::ssize_t(j));
      // The index is formatted only for a value refused (a string per value cost 6 ms on
      // 5,000 x 21, a third of a small fit).
      if (!std::isfinite(v) && !(allow_nan && std::isnan(v)))
        finite(v, name, "[" + std::to_string(i) + ", " + std::to_string(j) + "]");
      out(i, j) = v;
    }
  }
  return out;
}

Vector to_vector(const py::handle& object, const std::string& name, std::size_t rows) {
  const py::array array = checked(object, name, 1);
  const auto n = static_cast<std::size_t>(array.shape(0));
  if (n != rows) {
    throw ShapeError(name + " has " + std::to_string(n) + " values but X has " +
                     std::to_string(rows) + " rows; give one target value per row");
  }
  Vector out = Vector::from_shape({n});
  const char* base = static_cast<const char*>(array.data());
  for (std::size_t i = 0; i < n; ++i) {
    const double v = *reinterpret_cast<const double*>(base + array.strides(0) * py::ssize_t(i));
    if (!std::isfinite(v)) finite(v, name, "[" + std::to_string(i) + "]");
    out(i) = v;
  }
  return out;
}

py::array_t<double> to_numpy(const Matrix& matrix) {
  py::array_t<double> out({matrix.shape(0), matrix.shape(1)});
  std::copy(matrix.begin(), matrix.end(), out.mutable_data());
  return out;
}

namespace {

// Default names x0.. and the checks a CSV header gets.
void check_feature_names(std::vector<std::string>& feature_names, std::size_t d) {
  if (feature_names.empty()) {
    for (std::size_t j = 0; j < d; ++j) feature_names.push_back("x" + std::to_string(j));
  }
  // As a CSV header would be checked: one name per column, none empty, none twice (the model
  // file finds columns by name).
  if (feature_names.size() != d) {
    throw ShapeError("feature_names has " + std::to_string(feature_names.size()) +
                     " names for " + std::to_string(d) + " columns of X; give one per column");
  }
  std::map<std::string, std::size_t> seen;  // name -> first column
  for (std::size_t j = 0; j < d; ++j) {
    if (feature_names[j].empty())
      throw InputError("feature_names[" + std::to_string(j) + "] is empty; give every column a name");
    const auto [it, fresh] = seen.emplace(feature_names[j], j);
    if (!fresh)
      throw InputError("feature_names has '" + feature_names[j] + "' twice (columns " +
                       std::to_string(it->second) + " and " + std::to_string(j) +
                       "); give every column its own name");
  }
}

}  // namespace

std::optional<std::vector<std::string>> text_labels(const py::handle& y) {
  if (!py::isinstance<py::list>(y)) return std::nullopt;
  const py::list list = py::reinterpret_borrow<py::list>(y);
  std::vector<std::string> out;
  out.reserve(list.size());
  for (const py::handle item : list) {
    if (!py::isinstance<py::str>(item)) return std::nullopt;
    out.push_back(item.cast<std::string>());
  }
  return out;
}

namespace {

// The options of a target given as an array: its task and classes, when the caller names them.
DataOptions target_options(std::optional<Task> task,
                           const std::optional<std::vector<double>>& class_values) {
  DataOptions options;
  options.task = task;
  options.class_values = class_values;
  return options;
}

// "y[i]": element i of the target array named `label`, where a file would give line:column.
std::function<std::string(std::size_t)> element_of(const std::string& label) {
  return [label](std::size_t i) { return label + "[" + std::to_string(i) + "]"; };
}

}  // namespace

Dataset make_text_dataset(Matrix inputs, std::vector<std::string> target, std::optional<Task> task,
                          std::vector<std::string> feature_names, std::string target_name,
                          const std::optional<std::vector<double>>& class_values,
                          const std::optional<std::vector<std::string>>& class_names,
                          const std::string& target_label) {
  check_feature_names(feature_names, inputs.shape(1));
  DataOptions options = target_options(task, class_values);
  options.class_names = class_names;
  return dataset_from_text_labels(std::move(inputs), std::move(target), std::move(feature_names),
                                  target_name.empty() ? "y" : std::move(target_name), options,
                                  target_label, element_of(target_label));
}

Dataset make_dataset(Matrix inputs, Vector target, std::optional<Task> task,
                     std::vector<std::string> feature_names, std::string target_name,
                     const std::optional<std::vector<double>>& class_values,
                     const std::string& target_label) {
  check_feature_names(feature_names, inputs.shape(1));
  // The readers' own coding of a target column, with "y[i]" in place of "file:line:column".
  return dataset_from_arrays(std::move(inputs), std::move(target), std::move(feature_names),
                             target_name.empty() ? "y" : std::move(target_name),
                             target_options(task, class_values), target_label,
                             element_of(target_label));
}

}  // namespace radial::python
