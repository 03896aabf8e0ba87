// NumPy arrays in and out. The framework's Matrix owns row-major storage, so X is copied once
// (any strides: C- or F-ordered or sliced); the trainer standardises that copy in place.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "bindings.hpp"
#include "radial/data_reader.hpp"
#include "radial/errors.hpp"

namespace radial::python {
namespace {

std::string number(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

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
    throw DataError(name + index + " is " + (std::isnan(value) ? "NaN" : "infinite") +
                    "; NaN and Inf are not allowed: impute the value or remove the row");
  }
}

}  // namespace

Matrix to_matrix(const py::handle& object, const std::string& name) {
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
    finite(v, name, "[" + std::to_string(i) + "]");
    out(i) = v;
  }
  return out;
}

py::array_t<double> to_numpy(const Matrix& matrix) {
  py::array_t<double> out({matrix.shape(0), matrix.shape(1)});
  std::copy(matrix.begin(), matrix.end(), out.mutable_data());
  return out;
}

Dataset make_dataset(Matrix inputs, Vector target, std::optional<Task> task,
                     std::vector<std::string> feature_names, std::string target_name,
                     const std::optional<std::vector<double>>& class_values) {
  Dataset data;
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (feature_names.empty()) {
    for (std::size_t j = 0; j < d; ++j) feature_names.push_back("x" + std::to_string(j));
  }
  if (feature_names.size() != d) {
    throw ShapeError("feature_names has " + std::to_string(feature_names.size()) +
                     " names but X has " + std::to_string(d) + " columns");
  }
  data.inputs = std::move(inputs);
  data.feature_names = std::move(feature_names);
  data.target_name = target_name.empty() ? "y" : std::move(target_name);
  data.source = "y";
  const auto is_integer = [](double v) { return std::trunc(v) == v; };
  if (!task) {
    task = class_values || std::all_of(target.begin(), target.end(), is_integer)
               ? Task::Classification
               : Task::Regression;
  }
  data.task = *task;
  if (data.task == Task::Regression) {
    data.values = std::move(target);
    data.classes = Labels::from_shape({0});
    return data;
  }
  // As the CSV reader codes a target column (framework/src/data/target_coding.cpp).
  std::vector<double> labels;
  if (class_values) {
    labels = *class_values;
    std::sort(labels.begin(), labels.end());
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_integer(target(i))) {
        throw DataError("y[" + std::to_string(i) + "] = " + number(target(i)) +
                        " is not an integer class label, but the task is classification; "
                        "set data.task = \"regression\" or make the labels integers");
      }
      if (std::fabs(target(i)) >= 9007199254740992.0) {
        throw DataError("y[" + std::to_string(i) + "] = " + number(target(i)) +
                        " is a class label of magnitude 2^53 or more, where doubles cannot tell "
                        "neighbouring integers apart; renumber the classes with smaller integers");
      }
    }
    labels.assign(target.begin(), target.end());
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    if (labels.size() > max_classes) {
      throw DataError("y has " + std::to_string(labels.size()) +
                      " distinct integer values, more than the " + std::to_string(max_classes) +
                      " classes Radial trains a classifier for; if the target is a quantity, set "
                      "task = \"regression\" in [data]; otherwise merge classes");
    }
  }
  data.classes = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = std::lower_bound(labels.begin(), labels.end(), target(i));
    if (it == labels.end() || *it != target(i)) {
      throw DataError("y_test[" + std::to_string(i) + "]: class label " + number(target(i)) +
                      " does not occur in the training data; remove these rows or train on data "
                      "that contains this class");
    }
    data.classes(i) = static_cast<std::int64_t>(it - labels.begin());
  }
  data.values = Vector::from_shape({0});
  data.num_classes = labels.size();
  data.class_values = std::move(labels);
  return data;
}

}  // namespace radial::python
