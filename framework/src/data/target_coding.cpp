#include "target_coding.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "radial/collectives.hpp"
#include "radial/errors.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

// Doubles hold every integer below 2^53 exactly; from 2^53 on, neighbouring integers share a
// double ("9007199254740993" reads as 2^53), so two labels could merge into one class.
constexpr double exact_integers = 9007199254740992.0;

bool is_integer(double value) { return std::trunc(value) == value; }

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

// The distinct values in increasing order, in a small sorted list (memory O(K), not a copy of
// the N targets); false (with `out` holding the first max_classes + 1) when there are more than
// max_classes of them.
bool distinct_sorted(const Vector& values, std::vector<double>& out) {
  out.clear();
  for (const double v : values) {
    const auto it = std::lower_bound(out.begin(), out.end(), v);
    if (it != out.end() && *it == v) continue;
    out.insert(it, v);
    if (out.size() > max_classes) return false;
  }
  return true;
}

// The sorted distinct values of `values` (a copy: for the too-many-classes message only).
std::vector<double> all_distinct(const Vector& values) {
  std::vector<double> all(values.begin(), values.end());
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

[[noreturn]] void too_many_classes(const Dataset& data, std::size_t count, bool forced) {
  throw DataError(data.source + ": target column '" + escaped(data.target_name) + "' has " +
                  std::to_string(count) + " distinct integer values, more than the " +
                  std::to_string(max_classes) + " classes Radial trains a classifier for" +
                  (forced ? " (data.task = \"classification\")" : "") +
                  "; if the target is a quantity, set task = \"regression\" in [data]; "
                  "otherwise merge classes");
}

// Without given class values, every label must be an integer below 2^53 (first offender named).
void check_labels(const Dataset& data, const Vector& target,
                  const std::function<std::string(std::size_t)>& where) {
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (!is_integer(target[i])) {
      throw DataError(where(i) + ": target '" + escaped(data.target_name) + "' value " +
                      format_value(target[i]) +
                      " is not an integer class label, but the task is classification (set "
                      "by data.task); set data.task = \"regression\" or make the labels "
                      "integers");
    }
    if (std::fabs(target[i]) >= exact_integers) {
      throw DataError(where(i) + ": target '" + escaped(data.target_name) + "' value " +
                      format_value(target[i]) +
                      " is a class label of magnitude 2^53 (9007199254740992) or more, where "
                      "doubles cannot tell neighbouring integers apart, so labels would merge "
                      "into one class; renumber the classes with smaller integers, or set "
                      "task = \"regression\" in [data] if the target is a quantity");
    }
  }
}

void set_regression(Dataset& data, Vector target) {
  data.task = Task::Regression;
  data.values = std::move(target);
  data.classes = Labels::from_shape({0});
  data.num_classes = 0;
  data.class_values.clear();
}

// Codes every target value by its index in the sorted `labels`; a value not among them is named.
void assign_classes(Dataset& data, const Vector& target, std::vector<double> labels,
                    const std::function<std::string(std::size_t)>& where) {
  const std::size_t n = target.size();
  data.task = Task::Classification;
  data.classes = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = std::lower_bound(labels.begin(), labels.end(), target[i]);
    if (it == labels.end() || *it != target[i]) {
      throw DataError(where(i) + ": class label " + format_value(target[i]) +
                      " in target column '" + escaped(data.target_name) +
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

// The task the target column means: DataOptions::task, else classification when class values
// are given or when every value is an integer (on every rank's rows when `over_ranks`).
Task decide_task(const Vector& target, const DataOptions& options, bool over_ranks) {
  if (options.task) return *options.task;
  if (options.class_values) return Task::Classification;
  const bool integers = std::all_of(target.begin(), target.end(), is_integer);
  const bool all = over_ranks ? min_over_ranks(integers ? 1.0 : 0.0) == 1.0 : integers;
  return all ? Task::Classification : Task::Regression;
}

// The training set's class values (DataOptions::class_values), in increasing order.
std::vector<double> given_classes(const DataOptions& options) {
  std::vector<double> labels = *options.class_values;
  std::sort(labels.begin(), labels.end());
  return labels;
}

}  // namespace

std::string format_value(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

void code_target(Dataset& data, Vector target, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& where) {
  if (decide_task(target, options, false) == Task::Regression)
    return set_regression(data, std::move(target));

  std::vector<double> labels;
  if (options.class_values) {
    labels = given_classes(options);
  } else {
    check_labels(data, target, where);
    if (!distinct_sorted(target, labels))
      too_many_classes(data, all_distinct(target).size(), options.task.has_value());
  }
  assign_classes(data, target, std::move(labels), where);
}

void code_target_shard(Dataset& data, Vector target, const DataOptions& options,
                       const std::function<std::string(std::size_t)>& where) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return code_target(data, std::move(target), options, where);
  // Every rank decides as one process would on the whole column: the task from every rank's
  // values, the classes from the union of every rank's labels.
  if (decide_task(target, options, true) == Task::Regression)
    return set_regression(data, std::move(target));

  std::vector<double> labels;
  if (options.class_values) {
    labels = given_classes(options);
  } else {
    agreed([&] { check_labels(data, target, where); });
    // At most max_classes + 1 labels per rank travel; more on any rank, or in the union, is
    // too many, and only then are the full sets gathered for the exact count in the message.
    std::vector<double> local;
    const bool fits = distinct_sorted(target, local);
    const auto pack = [](const std::vector<double>& values) {
      return std::string(reinterpret_cast<const char*>(values.data()),
                         values.size() * sizeof(double));
    };
    const auto unpack_into = [](const std::string& bytes, std::vector<double>& out) {
      const std::size_t n = bytes.size() / sizeof(double), old = out.size();
      out.resize(old + n);
      std::memcpy(out.data() + old, bytes.data(), n * sizeof(double));
    };
    const std::vector<std::string> gathered = comm.all_gather(pack(local));
    for (const std::string& bytes : gathered) unpack_into(bytes, labels);
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    const bool union_fits = min_over_ranks(fits ? 1.0 : 0.0) == 1.0 && labels.size() <= max_classes;
    if (!union_fits) {
      std::vector<double> all;
      for (const std::string& bytes : comm.all_gather(pack(fits ? local : all_distinct(target))))
        unpack_into(bytes, all);
      std::sort(all.begin(), all.end());
      const auto count = std::size_t(std::unique(all.begin(), all.end()) - all.begin());
      too_many_classes(data, count, options.task.has_value());
    }
  }
  agreed([&] { assign_classes(data, target, std::move(labels), where); });
}

}  // namespace radial::data

namespace radial {

Dataset dataset_from_arrays(Matrix inputs, Vector target, std::vector<std::string> feature_names,
                            std::string target_name, const DataOptions& options,
                            const std::string& source,
                            const std::function<std::string(std::size_t)>& where) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (target.size() != n) {
    throw ShapeError(source + ": " + std::to_string(target.size()) + " target values for " +
                     std::to_string(n) + " rows; give one target value per row");
  }
  if (feature_names.size() != d) {
    throw ShapeError(source + ": " + std::to_string(feature_names.size()) + " feature names for " +
                     std::to_string(d) + " columns");
  }
  Dataset data;
  data.inputs = std::move(inputs);
  data.feature_names = std::move(feature_names);
  data.target_name = std::move(target_name);
  data.source = source;
  data::code_target(data, std::move(target), options, where);
  return data;
}

}  // namespace radial
