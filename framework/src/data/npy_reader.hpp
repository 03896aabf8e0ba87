#pragma once
// NumPy .npy files: little-endian float64, C order, 2-D (rows x columns), read front to back in
// blocks (regular files, pipes and FIFOs alike; peak memory: the values). A .npy file has no
// column names: the target is the last column, or the 1-based column number given as
// DataOptions::target (a name written in [data] is refused; see DataOptions); the inputs are named x<j> after their
// column j in the file (x1..xd when the target is last). NaN in an input column is a missing
// value when DataOptions::allow_missing ([data] missing other than "error"), exactly as an empty
// CSV cell; otherwise, and always in the target column, a DataError.

#include <filesystem>
#include <string>
#include <vector>

#include "radial/data/data_reader.hpp"

namespace radial::data {

Dataset read_npy(const std::filesystem::path& file, const DataOptions& options);

// The inputs of a model with `feature_names`: names x<j> take column j; otherwise the file's
// first columns in order (it holds the d inputs, or the d inputs and then the target).
// `allow_missing` (a model that imputes or integrates missing inputs out): NaN in an input
// column is a missing value, passed on as NaN; otherwise refused.
Matrix read_npy_inputs(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names, bool allow_missing = false);

// This rank's shard of the rows (read_dataset_shard, read_inputs_shard): rows
// block_shard(N, rank, P, parallel_block_rows) of a regular file, read from their offset (the other rows' bytes are
// never read); the task and classes agreed over ranks; errors agreed. Collective; with one rank
// the functions above.
Dataset read_npy_shard(const std::filesystem::path& file, const DataOptions& options);
Matrix read_npy_inputs_shard(const std::filesystem::path& file,
                             const std::vector<std::string>& feature_names,
                             bool allow_missing = false);

}  // namespace radial::data
