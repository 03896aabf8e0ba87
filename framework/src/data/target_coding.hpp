#pragma once
// The target column of a data file turned into a task and class indices or values; shared by
// the CSV and .npy readers.

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "radial/data/data_reader.hpp"
#include "radial/core/dataset.hpp"

namespace radial::data {

// Sets task, classes or values, num_classes and class_values of `data` from the target values
// (and target_name, which must already be set). Classification when options.task says so, when
// options.class_values is given, or when every value is an integer; classes are numbered in
// increasing order of their label, or by options.class_values. `where(i)` is the position of
// value i ("file:line:column") for messages. DataError for a non-integer label when the task is
// classification, for labels of magnitude >= 2^53, and for more than max_classes classes.
void code_target(Dataset& data, Vector target, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& where);

// code_target for this rank's shard of the target column, over the ranks of collectives(): the
// task, the class values (the union of every rank's labels, max_classes checked on the union)
// and so the class indices are those code_target gives the whole column. Errors are agreed
// (radial::agreed). With one rank it is code_target. Collective.
void code_target_shard(Dataset& data, Vector target, const DataOptions& options,
                       const std::function<std::string(std::size_t)>& where);

// The target cells of a column read as text labels. The reader switches to text at the first
// cell that is not a number (or at row 0 when the training set's labels are text); from then on
// a row's target value is the id of its text (label_text), ids in first-seen order; NaN is a
// missing target. Memory is O(K): at most max_classes distinct texts are kept (more is too many
// classes in any case).
class TextLabels {
 public:
  bool active() const { return active_; }
  // Rows from `row` on hold ids; earlier rows hold numbers, which finish() turns into ids.
  void start(std::size_t row) {
    active_ = true;
    start_row_ = row;
  }
  std::size_t start_row() const { return start_row_; }
  // The id of `text` (a new one when unseen); -1 once there are too many texts.
  double id(std::string_view text);
  // The numbers of rows below start_row() as the ids of their shortest texts ("2", "0.5").
  void finish(Vector& target);
  const std::vector<std::string>& names() const { return names_; }
  bool too_many() const { return too_many_; }

 private:
  std::map<std::string, std::size_t, std::less<>> index_;
  std::vector<std::string> names_;
  bool active_ = false, too_many_ = false;
  std::size_t start_row_ = 0;
};

// code_target for a column that may hold text labels: when `labels` is active the target values
// are its ids, coded into class indices in increasing byte order of the texts (or by
// options.class_names), and Dataset::class_names is set; otherwise code_target. DataError for
// text labels when the task is regression or the training set's labels are numbers, for a
// label the training set does not have, and for more than max_classes labels.
void code_labels(Dataset& data, Vector target, TextLabels& labels, const DataOptions& options,
                 const std::function<std::string(std::size_t)>& where);

// code_labels for this rank's shard (code_target_shard's promises): text on any rank makes the
// column text on every rank (numbers become their texts), and the classes are the union of
// every rank's labels. Collective.
void code_labels_shard(Dataset& data, Vector target, TextLabels& labels,
                       const DataOptions& options,
                       const std::function<std::string(std::size_t)>& where);

// The distinct texts of `names` over the ranks of collectives(), in increasing byte order (the
// order one process sorts them in), on every rank. Collective; with one rank, sorted `names`.
std::vector<std::string> union_over_ranks(const std::vector<std::string>& names);

// The shortest text that reads back as `value` ("3", "0.1", "-2e-05").
std::string format_value(double value);

// The text a label or category is known by: a finite number as the shortest text of its value
// (so "1", "1.0" and "+1" are one label, as the values they spell), anything else as written.
std::string label_text(std::string_view text);

}  // namespace radial::data
