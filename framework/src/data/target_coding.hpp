#pragma once
// The target column of a data file turned into a task and class indices or values; shared by
// the CSV and .npy readers.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "radial/data_reader.hpp"
#include "radial/dataset.hpp"

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

// The shortest text that reads back as `value` ("3", "0.1", "-2e-05").
std::string format_value(double value);

}  // namespace radial::data
