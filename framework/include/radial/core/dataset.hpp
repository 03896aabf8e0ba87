#pragma once
// A data set in memory: inputs and one target column, plus what the reader learned about it.

#include <cstddef>
#include <string>
#include <vector>

#include "radial/core/input_coding.hpp"
#include "radial/core/types.hpp"

namespace radial {

enum class Task { Classification, Regression };

struct Dataset {
  Matrix inputs;                            // N x d
  Task task = Task::Classification;
  Labels classes;                           // N class indices 0..K-1 (classification)
  Vector values;                            // N target values (regression)
  std::size_t num_classes = 0;              // K (classification), 0 for regression
  std::vector<double> class_values;         // class index k -> label as written in the file
  // Text labels ("yes", "Iris-setosa"): class index k -> its label, in increasing byte order;
  // then class_values[k] = k. Empty when the labels are numbers.
  std::vector<std::string> class_names;
  std::vector<std::string> feature_names;   // d names from the header (coded: "colour=red")
  InputCoding coding;                       // nominal inputs coded 1-of-C; empty: none
  std::string target_name;
  std::string source;                       // file name, for messages
  // Rows left out for a missing target (the readers, when data.missing is not "error").
  std::size_t missing_targets = 0;

  std::size_t rows() const { return inputs.shape(0); }
  std::size_t features() const { return inputs.shape(1); }
};

// Class k's label as text: class_names[k], or class_values[k] written as a number.
std::string class_label(const std::vector<double>& class_values,
                        const std::vector<std::string>& class_names, std::size_t k);

// 1-of-K coding of class indices: N x K with a single 1 per row.
Matrix one_of_k(const Labels& classes, std::size_t num_classes);

// The rows `index` of `data` (for cross-validation folds and subsets).
Dataset select_rows(const Dataset& data, const std::vector<std::size_t>& index);

}  // namespace radial
