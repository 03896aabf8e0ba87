#pragma once
// LIBSVM / SVMlight data sets, private to the data readers: one row per line,
// `label index:value index:value ...` with 1-based indices in increasing order (an omitted index
// is 0), an optional `qid:n` after the label (ignored) and a `# comment` to the end of the line;
// blank lines and lines that start with `#` are skipped. The label is a number (classification
// when every label is an integer, as for CSV). The inputs are d dense columns named x1..xd after
// their index, d the largest index of the file or DataOptions::features (an index above it is
// an error). Rows are streamed as (index, value) pairs and made dense once d is known.

#include <filesystem>
#include <string>
#include <vector>

#include "radial/data/data_reader.hpp"

namespace radial::data {

Dataset read_libsvm(const std::filesystem::path& file, const DataOptions& options);

// The inputs of a model with `feature_names`: names x<j> take index j, other names the indices
// 1..d in order (as for .npy); indices the model does not use are ignored.
Matrix read_libsvm_inputs(const std::filesystem::path& file,
                          const std::vector<std::string>& feature_names);

// This rank's shard of the rows (read_dataset_shard's promises; d is the largest index over
// every rank's rows). Collective; with one rank the functions above.
Dataset read_libsvm_shard(const std::filesystem::path& file, const DataOptions& options);
Matrix read_libsvm_inputs_shard(const std::filesystem::path& file,
                                const std::vector<std::string>& feature_names);

}  // namespace radial::data
