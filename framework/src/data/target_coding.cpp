#include "target_coding.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
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

// An integer target read as classes without data.task: refused when it looks like a quantity
// (issue 47: house prices as 883 "classes" trained 20 times slower with 4 times the error), so
// the task is never guessed silently. With K classes in N rows, a quantity is
//   - K >= 10 with at least half of the classes in one or two rows (labels repeat; values of a
//     measured quantity mostly do not), or
//   - K > 20 and K > 2 sqrt(N) (a class needs rows to be learned: letter has 26 classes in
//     20,000 rows, digits 10 in 1,797).
// Collective when `over_ranks` (the class counts summed over ranks).
void check_inferred_classes(const Dataset& data, const DataOptions& options, bool over_ranks) {
  if (options.task || options.class_values) return;
  const std::size_t k = data.num_classes;
  if (k < 10) return;
  std::vector<double> counts(k, 0.0);
  for (const auto c : data.classes) counts[std::size_t(c)] += 1.0;
  if (over_ranks) collectives().sum(counts.data(), k);
  double rows = 0.0;
  std::size_t sparse = 0;
  for (const double c : counts) {
    rows += c;
    if (c <= 2.0) ++sparse;
  }
  const bool thin = 2 * sparse >= k;
  const bool many = k > 20 && double(k) > 2.0 * std::sqrt(rows);
  if (!thin && !many) return;
  throw DataError(data.source + ": target column '" + escaped(data.target_name) + "' holds " +
                  std::to_string(k) + " distinct integer values in " +
                  std::to_string(std::size_t(rows)) + " rows (" + std::to_string(sparse) +
                  " of them in one or two rows), which looks like a quantity, not class "
                  "labels; Radial does not guess the task: set task = \"regression\" in [data] "
                  "(--set data.task=regression) if the target is a quantity, or task = "
                  "\"classification\" if these are " + std::to_string(k) + " classes");
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

// Text labels as a list for messages, at most 20 shown.
std::string list_names(const std::vector<std::string>& names) {
  constexpr std::size_t shown = 20;
  std::string out;
  for (std::size_t k = 0; k < names.size() && k < shown; ++k) {
    if (k != 0) out += ", ";
    out += "\"" + escaped(names[k]) + "\"";
  }
  if (names.size() > shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

[[noreturn]] void too_many_text_labels(const Dataset& data) {
  throw DataError(data.source + ": target column '" + escaped(data.target_name) +
                  "' has more than " + std::to_string(max_classes) +
                  " distinct text labels, more than the classes Radial trains a classifier for; "
                  "merge classes, or give the target as numbers if it is a quantity");
}

// Text labels cannot be regressed on, nor coded by a training set whose labels were numbers.
void check_text_allowed(const Dataset& data, const Vector& target, const TextLabels& labels,
                        const DataOptions& options,
                        const std::function<std::string(std::size_t)>& where) {
  const std::size_t row = labels.start_row();
  if (row >= target.size()) return;
  const std::string text = labels.names().at(std::size_t(target[row]));
  if (options.task == Task::Regression) {
    throw DataError(where(row) + ": target '" + escaped(data.target_name) + "' value \"" +
                    escaped(text) + "\" is not a number, but the task is regression; give "
                    "numbers, or set data.task = \"classification\" for text class labels");
  }
  if (options.class_values && !options.class_names) {
    throw DataError(where(row) + ": class label \"" + escaped(text) + "\" in target column '" +
                    escaped(data.target_name) + "' is text, but the training data's classes are "
                    "the numbers " + list_labels(*options.class_values) +
                    "; give this file the training data's labels");
  }
}

// Codes the ids of `target` (into `names`) by the index of their text in the sorted `classes`.
void assign_text_classes(Dataset& data, const Vector& target,
                         const std::vector<std::string>& names, std::vector<std::string> classes,
                         const std::function<std::string(std::size_t)>& where) {
  std::vector<std::int64_t> index(names.size());
  for (std::size_t id = 0; id < names.size(); ++id) {
    const auto it = std::lower_bound(classes.begin(), classes.end(), names[id]);
    index[id] = it != classes.end() && *it == names[id] ? std::int64_t(it - classes.begin()) : -1;
  }
  const std::size_t n = target.size();
  data.task = Task::Classification;
  data.classes = Labels::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t k = index[std::size_t(target[i])];
    if (k < 0) {
      throw DataError(where(i) + ": class label \"" + escaped(names[std::size_t(target[i])]) +
                      "\" in target column '" + escaped(data.target_name) +
                      "' does not occur in the training data (its classes are " +
                      list_names(classes) +
                      "); remove these rows or train on data that contains this class");
    }
    data.classes(i) = k;
  }
  data.values = Vector::from_shape({0});
  data.num_classes = classes.size();
  data.class_values.resize(classes.size());
  for (std::size_t k = 0; k < classes.size(); ++k) data.class_values[k] = double(k);
  data.class_names = std::move(classes);
}

std::vector<std::string> sorted_unique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Length-prefixed texts, for all_gather.
std::string pack_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    const std::uint64_t size = name.size();
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out += name;
  }
  return out;
}

void unpack_names(const std::string& bytes, std::vector<std::string>& out) {
  for (std::size_t at = 0; at + sizeof(std::uint64_t) <= bytes.size();) {
    std::uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at, sizeof size);
    at += sizeof size;
    out.push_back(bytes.substr(at, std::size_t(size)));
    at += std::size_t(size);
  }
}

// Leaves out the rows whose target is missing (NaN, which the readers give a missing target cell
// only when data.missing is not "error"; without it, a DataError at the first): their inputs
// with them, counted in data.missing_targets. Returns `where` for the rows kept.
std::function<std::string(std::size_t)> drop_missing_targets(
    Dataset& data, Vector& target, const DataOptions& options,
    const std::function<std::string(std::size_t)>& where) {
  const std::size_t n = target.size();
  const auto missing = std::size_t(std::count_if(target.begin(), target.end(),
                                                 [](double v) { return std::isnan(v); }));
  if (missing == 0) return where;
  auto kept = std::make_shared<std::vector<std::size_t>>();
  kept->reserve(n - missing);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(target[i])) {
      kept->push_back(i);
    } else if (!options.allow_missing) {
      throw DataError(where(i) + ": missing target value in column '" +
                      escaped(data.target_name) + "'; every row needs its target: remove the "
                      "row, or set data.missing = \"drop-rows\" to leave such rows out");
    }
  }
  if (kept->empty()) {
    throw DataError(data.source + ": every row's target ('" + escaped(data.target_name) +
                    "') is missing; give the target values");
  }
  const std::size_t d = data.inputs.dimension() == 2 ? data.inputs.shape(1) : 0;
  const bool with_inputs = data.inputs.dimension() == 2 && data.inputs.shape(0) == n;
  Matrix inputs = Matrix::from_shape({kept->size(), d});
  Vector values = Vector::from_shape({kept->size()});
  for (std::size_t k = 0; k < kept->size(); ++k) {
    const std::size_t i = (*kept)[k];
    values[k] = target[i];
    if (with_inputs)
      std::copy_n(&data.inputs(i, 0), d, &inputs(k, 0));
  }
  if (with_inputs) data.inputs = std::move(inputs);
  target = std::move(values);
  data.missing_targets += missing;
  return [kept, where](std::size_t k) { return where((*kept)[k]); };
}

}  // namespace

std::string label_text(std::string_view text) {
  // Spaces around a number do not change its value; around text they are part of it (RFC 4180).
  std::string_view number = text;
  while (!number.empty() && (number.front() == ' ' || number.front() == '\t'))
    number.remove_prefix(1);
  while (!number.empty() && (number.back() == ' ' || number.back() == '\t')) number.remove_suffix(1);
  const char* first = number.data();
  const char* last = first + number.size();
  if (first != last && *first == '+' && number.size() > 1 && first[1] != '-') ++first;
  double value = 0.0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (first != last && end == last && error == std::errc() && std::isfinite(value))
    return format_value(value);
  return std::string(text);
}

double TextLabels::id(std::string_view text) {
  const std::string name = label_text(text);
  const auto found = index_.find(name);
  if (found != index_.end()) return double(found->second);
  if (names_.size() >= max_classes) {
    too_many_ = true;
    return 0.0;  // never coded: too_many() refuses the column
  }
  index_.emplace(name, names_.size());
  names_.push_back(name);
  return double(names_.size() - 1);
}

void TextLabels::finish(Vector& target) {
  const std::size_t end = std::min(start_row_, target.size());
  for (std::size_t i = 0; i < end; ++i)
    if (!std::isnan(target[i])) target[i] = id(format_value(target[i]));  // NaN: missing
}

void code_labels(Dataset& data, Vector target, TextLabels& labels, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& where) {
  if (!labels.active()) return code_target(data, std::move(target), options, where);
  labels.finish(target);
  if (labels.too_many()) too_many_text_labels(data);
  check_text_allowed(data, target, labels, options, where);
  const auto kept_where = drop_missing_targets(data, target, options, where);
  std::vector<std::string> classes =
      options.class_names ? sorted_unique(*options.class_names) : sorted_unique(labels.names());
  if (classes.size() > max_classes) too_many_text_labels(data);
  assign_text_classes(data, target, labels.names(), std::move(classes), kept_where);
}

void code_labels_shard(Dataset& data, Vector target, TextLabels& labels,
                       const DataOptions& options,
                       const std::function<std::string(std::size_t)>& where) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return code_labels(data, std::move(target), labels, options, where);
  const bool any_text = min_over_ranks(labels.active() ? 0.0 : 1.0) == 0.0;
  if (!any_text) return code_target_shard(data, std::move(target), options, where);
  // A rank that read only numbers holds them as the texts they were written as.
  if (!labels.active()) labels.start(target.size());
  labels.finish(target);
  if (min_over_ranks(labels.too_many() ? 0.0 : 1.0) == 0.0) too_many_text_labels(data);
  agreed([&] { check_text_allowed(data, target, labels, options, where); });
  std::function<std::string(std::size_t)> kept_where;
  agreed([&] { kept_where = drop_missing_targets(data, target, options, where); });
  std::vector<std::string> classes;
  if (options.class_names) {
    classes = sorted_unique(*options.class_names);
  } else {
    for (const std::string& bytes : comm.all_gather(pack_names(labels.names())))
      unpack_names(bytes, classes);
    classes = sorted_unique(std::move(classes));
  }
  if (classes.size() > max_classes) too_many_text_labels(data);
  agreed([&] { assign_text_classes(data, target, labels.names(), std::move(classes), kept_where); });
}

std::vector<std::string> union_over_ranks(const std::vector<std::string>& names) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return sorted_unique(names);
  std::vector<std::string> all;
  for (const std::string& bytes : comm.all_gather(pack_names(names))) unpack_names(bytes, all);
  return sorted_unique(std::move(all));
}

std::string format_value(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

void code_target(Dataset& data, Vector target, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& given_where) {
  const auto where = drop_missing_targets(data, target, options, given_where);
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
  check_inferred_classes(data, options, false);
}

void code_target_shard(Dataset& data, Vector target, const DataOptions& options,
                       const std::function<std::string(std::size_t)>& given_where) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return code_target(data, std::move(target), options, given_where);
  std::function<std::string(std::size_t)> where;
  agreed([&] { where = drop_missing_targets(data, target, options, given_where); });
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
  check_inferred_classes(data, options, true);
}

}  // namespace radial::data

namespace radial {

void use_classes_of(DataOptions& options, const std::vector<double>& class_values,
                    const std::vector<std::string>& class_names) {
  options.class_values = class_values;
  if (!class_names.empty()) options.class_names = class_names;
}

namespace {

// A data set of `inputs` with its names, checked against the target's length and the columns.
Dataset named_inputs(Matrix inputs, std::size_t targets, std::vector<std::string> feature_names,
                     std::string target_name, const std::string& source) {
  const std::size_t n = inputs.shape(0), d = inputs.shape(1);
  if (targets != n) {
    throw ShapeError(source + ": " + std::to_string(targets) + " target values for " +
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
  return data;
}

}  // namespace

Dataset dataset_from_text_labels(Matrix inputs, std::vector<std::string> target,
                                 std::vector<std::string> feature_names, std::string target_name,
                                 const DataOptions& options, const std::string& source,
                                 const std::function<std::string(std::size_t)>& where) {
  Dataset data = named_inputs(std::move(inputs), target.size(), std::move(feature_names),
                              std::move(target_name), source);
  data::TextLabels labels;
  labels.start(0);
  Vector ids = Vector::from_shape({target.size()});
  for (std::size_t i = 0; i < target.size(); ++i) ids[i] = labels.id(target[i]);
  data::code_labels(data, std::move(ids), labels, options, where);
  return data;
}

Dataset dataset_from_arrays(Matrix inputs, Vector target, std::vector<std::string> feature_names,
                            std::string target_name, const DataOptions& options,
                            const std::string& source,
                            const std::function<std::string(std::size_t)>& where) {
  Dataset data = named_inputs(std::move(inputs), target.size(), std::move(feature_names),
                              std::move(target_name), source);
  data::code_target(data, std::move(target), options, where);
  return data;
}

}  // namespace radial
