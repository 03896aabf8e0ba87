#include "target_coding.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "radial/errors.hpp"

namespace radial::data {
namespace {

// Doubles hold every integer up to 2^53 exactly; beyond that "integer" says nothing.
bool is_integer(double value) {
  return std::trunc(value) == value && std::fabs(value) <= 9007199254740992.0;
}

std::string list_labels(const std::vector<double>& labels) {
  constexpr std::size_t shown = 20;
  std::string out;
  for (std::size_t k = 0; k < labels.size() && k < shown; ++k) {
    if (k != 0) out += ", ";
    out += format_value(labels[k]);
  }
  if (labels.size() > shown) out += ", ... (" + std::to_string(labels.size()) + " in all)";
  return out;
}

// The distinct values in increasing order. Few classes are collected in a small sorted list,
// so memory stays O(K) instead of a copy of the N targets; many distinct values fall back to
// sorting a copy.
std::vector<double> distinct_sorted(const std::vector<double>& values) {
  constexpr std::size_t few = 4096;
  std::vector<double> out;
  for (const double v : values) {
    const auto it = std::lower_bound(out.begin(), out.end(), v);
    if (it != out.end() && *it == v) continue;
    if (out.size() == few) {
      out = values;
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
      return out;
    }
    out.insert(it, v);
  }
  return out;
}

}  // namespace

std::string format_value(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

void code_target(Dataset& data, const std::vector<double>& target, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& where) {
  const std::size_t n = target.size();
  Task task = Task::Regression;
  if (options.task) {
    task = *options.task;
  } else if (options.class_values) {
    task = Task::Classification;
  } else {
    task = std::all_of(target.begin(), target.end(), is_integer) ? Task::Classification
                                                                 : Task::Regression;
  }
  data.task = task;

  if (task == Task::Regression) {
    data.values = Vector::from_shape({n});
    std::copy(target.begin(), target.end(), data.values.begin());
    data.classes = Labels::from_shape({0});
    data.num_classes = 0;
    data.class_values.clear();
    return;
  }

  std::vector<double> labels;
  if (options.class_values) {
    labels = *options.class_values;
    std::sort(labels.begin(), labels.end());
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if (!is_integer(target[i])) {
        throw DataError(where(i) + ": target '" + data.target_name + "' value " +
                        format_value(target[i]) +
                        " is not an integer class label, but the task is classification (set "
                        "by data.task); set data.task = \"regression\" or make the labels "
                        "integers");
      }
    }
    labels = distinct_sorted(target);
  }

  data.classes = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = std::lower_bound(labels.begin(), labels.end(), target[i]);
    if (it == labels.end() || *it != target[i]) {
      throw DataError(where(i) + ": class label " + format_value(target[i]) +
                      " in target column '" + data.target_name +
                      "' does not occur in the training data (its classes are " +
                      list_labels(labels) +
                      "); remove these rows or train on data that contains this class");
    }
    data.classes(i) = static_cast<std::int64_t>(it - labels.begin());
  }
  data.values = Vector::from_shape({0});
  data.num_classes = labels.size();
  data.class_values = std::move(labels);
}

}  // namespace radial::data
