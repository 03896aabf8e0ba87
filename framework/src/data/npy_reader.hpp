#pragma once
// NumPy .npy files: little-endian float64, C order, 2-D (rows x columns), memory-mapped and
// copied front to back, pages released as they are copied (peak memory: the copy). The
// last column is the target; the inputs are named x1..xd. A .npy file has no column names, so
// DataOptions::target only names the target (default "y"), it cannot choose another column.

#include <filesystem>

#include "radial/data_reader.hpp"

namespace radial::data {

Dataset read_npy(const std::filesystem::path& file, const DataOptions& options);

}  // namespace radial::data
