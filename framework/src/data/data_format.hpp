#pragma once
// Which reader a data file goes to, by its extension (case-insensitive): .npy, .arff, .libsvm
// (or .svm, .svmlight), and CSV for anything else. Private to the data readers.

#include <filesystem>

namespace radial::data {

enum class DataFormat { Csv, Npy, Arff, Libsvm };

DataFormat format_of(const std::filesystem::path& file);

}  // namespace radial::data
