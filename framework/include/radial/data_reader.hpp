#pragma once
// Reading data files into a Dataset.
//
// CSV with a header row; the target column by name (default: the last column). The task is
// classification when every target value is an integer, regression otherwise, unless forced.
// Class labels are mapped to indices 0..K-1 in increasing order of their value.
// Errors (DataError) name file, line and column: ragged rows, non-numeric cells, NaN/Inf,
// empty files, a missing target column, duplicate column names.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "radial/dataset.hpp"

namespace radial {

struct DataOptions {
  std::string target;              // empty: the last column
  std::optional<Task> task;        // empty: inferred from the target values
  // Class values of the training set: a test set is coded with the same indices, and a test
  // label never seen in training is a DataError.
  std::optional<std::vector<double>> class_values;
};

Dataset read_csv(const std::filesystem::path& file, const DataOptions& options = {});

// Reads by extension: .csv (and anything else) as CSV, .npy as a NumPy array whose last column
// is the target (memory-mapped).
Dataset read_dataset(const std::filesystem::path& file, const DataOptions& options = {});

// Reads a CSV of inputs only for prediction: columns are matched to `feature_names` by name
// (extra columns such as the target are ignored); a missing feature is a DataError.
Matrix read_inputs_csv(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names);

}  // namespace radial
