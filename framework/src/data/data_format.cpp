#include "data_format.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace radial::data {

DataFormat format_of(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".npy") return DataFormat::Npy;
  if (extension == ".arff") return DataFormat::Arff;
  if (extension == ".libsvm" || extension == ".svm" || extension == ".svmlight")
    return DataFormat::Libsvm;
  return DataFormat::Csv;
}

}  // namespace radial::data
