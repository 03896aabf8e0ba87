#pragma once
// Reading data files into a Dataset.
//
// CSV with a header row; the target column by name (default: the last column). The task is
// classification when every target value is an integer, regression otherwise, unless forced.
// Class labels are mapped to indices 0..K-1 in increasing order of their value; at most
// max_classes of them, each of magnitude below 2^53 (beyond it doubles merge neighbouring labels).
// A target column with a cell that is not a number ("yes", "Iris-setosa") holds text labels:
// every cell of it is then a label as written, spaces kept (numbers by the value they spell: 1
// and 1.0 are one label), classes in increasing byte order (as numpy.unique sorts them),
// Dataset::class_names; text labels make the task classification. A missing target (an
// unquoted empty, ?, NA or NaN cell) is an error at its cell, or with allow_missing its row is
// left out (Dataset::missing_targets).
// Errors (DataError) name file, line and column: ragged rows, non-numeric cells, NaN/Inf,
// empty files, binary bytes, a missing target column, duplicate column names. Files are read as
// streams (pipes, FIFOs and /dev/stdin work) in their parsed size plus a few MB.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "radial/core/dataset.hpp"

namespace radial {

// The most classes a target may have: more distinct integer labels are almost always a
// quantity to regress on, and the output stage grows with K^2 (the softmax Hessian).
constexpr std::size_t max_classes = 1000;

// The most features a LIBSVM file may have (its largest index, or data.features). The networks
// hold inputs dense and name each column, so a million empty columns cost seconds and hundreds of
// MB before any fit; datasets past this (url, kdd2010) are beyond a dense RBF network anyway.
inline constexpr std::size_t max_sparse_features = std::size_t(1) << 20;

struct DataOptions {
  std::string target;              // empty: the last column; .npy: a 1-based column number
  // The target was written by the user in [data] (not read from a model): a .npy file has no
  // column names, so a name there is a DataError. A model's target name (evaluate) on a .npy
  // file names its last column (or the column whose number it is).
  bool target_from_pipeline = false;
  std::optional<Task> task;        // empty: inferred from the target values
  // Class values of the training set: a test set is coded with the same indices, and a test
  // label never seen in training is a DataError.
  std::optional<std::vector<double>> class_values;
  // Text class labels of the training set (Dataset::class_names): every target cell is then read
  // as text and coded by this list.
  std::optional<std::vector<std::string>> class_names;
  // LIBSVM files: the number of input features d (indices 1..d, at most max_sparse_features);
  // empty: the largest index in the file. A test set is read with its training set's d.
  std::optional<std::size_t> features;
  // CSV and ARFF: input columns read as categories from their first row (data.nominal); a CSV
  // column whose first cell is text is one too. Coded 1-of-C (radial/core/input_coding.hpp).
  std::vector<std::string> nominal;
  bool unseen_as_zero = false;  // data.unseen = "zeros": stored in the coding
  // The training set's coding: a test set's nominal columns and categories.
  std::optional<InputCoding> coding;
  // [data] missing is not "error": a missing input cell (radial/data/missing_values.hpp) is read as
  // NaN instead of refused.
  bool allow_missing = false;
  // CSV: a regular file of two parts of part_bytes or more is parsed in up to `threads` parts
  // at once, one thread each (0: all cores); the same data as one pass.
  int threads = 0;
  std::size_t part_bytes = std::size_t(16) << 20;
};

// DataOptions::class_values and class_names of a training set's classes (for its test set).
void use_classes_of(DataOptions& options, const std::vector<double>& class_values,
                    const std::vector<std::string>& class_names);

Dataset read_csv(const std::filesystem::path& file, const DataOptions& options = {});

// A dataset from values already in memory (the Python module's arrays): `inputs` N x d (finite),
// `target` N, coded exactly as the readers code a target column (task, class indices, the
// limits above); `where(i)` names target value i in messages ("y[3]"). `source` names the data.
Dataset dataset_from_arrays(Matrix inputs, Vector target, std::vector<std::string> feature_names,
                            std::string target_name, const DataOptions& options,
                            const std::string& source,
                            const std::function<std::string(std::size_t)>& where);

// dataset_from_arrays for text labels (`target` one per row): coded as a CSV column of text labels
// is (classes in increasing byte order, or by options.class_names).
Dataset dataset_from_text_labels(Matrix inputs, std::vector<std::string> target,
                                 std::vector<std::string> feature_names, std::string target_name,
                                 const DataOptions& options, const std::string& source,
                                 const std::function<std::string(std::size_t)>& where);

// Reads by extension: .csv (and anything else) as CSV, .npy as a NumPy float64 array whose
// target is the last column or the 1-based column number given as DataOptions::target, .arff as
// Weka's ARFF (the target attribute by name, default the last; nominal and string targets are
// text labels, coded as from CSV), and .libsvm, .svm or .svmlight as LIBSVM/SVMlight rows
// (`label index:value ...`, inputs x1..xd, d the largest index or DataOptions::features).
Dataset read_dataset(const std::filesystem::path& file, const DataOptions& options = {});

// Reads the inputs for prediction, by extension. CSV and ARFF: columns (attributes) are matched to
// `feature_names` by name (extra ones such as the target are ignored); a missing feature is a
// DataError. LIBSVM: features named x<j> take index j, other names the indices in order. .npy:
// features named x<j> take column j, other names the first columns in order.
Matrix read_inputs_csv(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names);

// The inputs of a model for prediction: with nominal inputs (CSV and ARFF files), the raw
// columns coding.raw_names read and coded 1-of-C (an unseen category an error at its cell, or
// zeros); otherwise read_inputs_csv, or read_inputs_shard under several ranks. Collective.
// `allow_missing`: missing cells of CSV and ARFF files are NaN (a model that imputes).
Matrix read_model_inputs(const std::filesystem::path& file,
                         const std::vector<std::string>& feature_names, const InputCoding& coding,
                         bool allow_missing = false);

// ---- Shards (data-parallel runs, radial/distributed/collectives.hpp)
// ---------------------------------------- Under `mpirun -np P` each rank reads only its contiguous
// shard of the rows; the shards of ranks 0..P-1 in order are the rows read_dataset reads. Every
// rank makes the same call (collective).
//  - Shards start at multiples of parallel_block_rows (block_shard): each rank's row blocks are
//    blocks of the single-process run, so passes folded over ranks in block order give its bits.
//    A file of fewer than P blocks leaves the last ranks without rows.
//  - .npy: rows block_shard(N, rank, P, parallel_block_rows), read from their offset in the file
//    (the other rows' bytes are never read).
//  - CSV: every rank reads the header; the S bytes after it are cut at S*r/P and rank r parses
//    the lines that start in [S*r/P, S*(r+1)/P). Messages name the line numbers of the whole
//    file (each rank counts the line ends of its range, prefix-summed). The parsed rows are then
//    passed between neighbouring ranks onto the block_shard layout (for a moment a rank holds
//    its rows twice).
//  - A pipe, FIFO or stdin cannot be split: with P > 1 it is a DataError.
//  - The task, the class values (the union of every rank's labels, sorted, max_classes checked
//    on the union) and the feature names are those of the whole file, so class indices are
//    coded as read_dataset codes them; DataOptions::task and class_values apply as there.
//  - "No data rows" is judged on the rows of all ranks.
//  - Errors are agreed (radial::agreed): when one rank's range is bad (a ragged line), every rank
//    throws that rank's DataError, prefixed "rank R: ", and none waits for the others.

// This rank's shard of the rows of `file`, over the ranks of collectives(). With one rank it is
// read_dataset(file, options).
Dataset read_dataset_shard(const std::filesystem::path& file, const DataOptions& options = {});

// This rank's shard of the inputs for prediction (as read_inputs_csv / the .npy inputs reader);
// with one rank exactly what the CLI reads today.
Matrix read_inputs_shard(const std::filesystem::path& file,
                         const std::vector<std::string>& feature_names);

}  // namespace radial
