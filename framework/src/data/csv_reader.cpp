// read_csv, read_inputs_csv and read_dataset of radial/data_reader.hpp.

#include <algorithm>
#include <cctype>
#include <utility>

#include "csv_scanner.hpp"
#include "npy_reader.hpp"
#include "radial/data_reader.hpp"
#include "radial/errors.hpp"
#include "radial/params.hpp"
#include "target_coding.hpp"

namespace radial {
namespace {

std::string list_names(const std::vector<std::string>& names) {
  constexpr std::size_t shown = 20;
  std::string out;
  for (std::size_t c = 0; c < names.size() && c < shown; ++c) {
    if (c != 0) out += ", ";
    out += names[c];
  }
  if (names.size() > shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string hint(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string close = did_you_mean(word, candidates);
  return close.empty() ? std::string() : " (did you mean '" + close + "'?)";
}

Matrix to_matrix(const std::vector<double>& values, std::size_t rows, std::size_t columns) {
  Matrix m = Matrix::from_shape({rows, columns});
  std::copy(values.begin(), values.end(), m.begin());
  return m;
}

void require_rows(const data::CsvScanner& scanner, std::size_t rows) {
  if (rows == 0) {
    throw DataError(scanner.name() + ":2:1: no data rows after the header; add at least one "
                    "row of values");
  }
}

}  // namespace

Dataset read_csv(const std::filesystem::path& file, const DataOptions& options) {
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  const std::string header_at = scanner.name() + ":1:1";
  if (names.size() < 2) {
    throw DataError(header_at + ": only one column ('" + names.front() +
                    "'); a data file needs at least one input column besides the target");
  }
  std::size_t target = names.size() - 1;
  if (!options.target.empty()) {
    const auto it = std::find(names.begin(), names.end(), options.target);
    if (it == names.end()) {
      throw DataError(header_at + ": no target column '" + options.target + "'" +
                      hint(options.target, names) + "; the columns are " + list_names(names) +
                      "; set data.target to one of them");
    }
    target = static_cast<std::size_t>(it - names.begin());
  }

  Dataset data;
  data.source = file.string();
  data.target_name = names[target];
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (c != target) data.feature_names.push_back(names[c]);
  }
  const std::size_t d = data.feature_names.size();

  std::vector<double> inputs, targets;
  std::vector<std::pair<std::size_t, std::size_t>> target_at;  // line, column
  std::vector<data::CsvCell> cells;
  std::size_t rows = 0;
  while (scanner.next_row(cells)) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const double value = data::parse_number(scanner, cells[c], names[c]);
      if (c == target) {
        targets.push_back(value);
        target_at.emplace_back(scanner.line(), cells[c].column);
      } else {
        inputs.push_back(value);
      }
    }
    ++rows;
  }
  require_rows(scanner, rows);

  data.inputs = to_matrix(inputs, rows, d);
  data::code_target(data, targets, options, [&](std::size_t i) {
    return scanner.name() + ":" + std::to_string(target_at[i].first) + ":" +
           std::to_string(target_at[i].second);
  });
  return data;
}

Matrix read_inputs_csv(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names) {
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  // source[j]: the file column holding feature j.
  std::vector<std::size_t> source(feature_names.size());
  for (std::size_t j = 0; j < feature_names.size(); ++j) {
    const auto it = std::find(names.begin(), names.end(), feature_names[j]);
    if (it == names.end()) {
      throw DataError(scanner.name() + ":1:1: no column '" + feature_names[j] + "'" +
                      hint(feature_names[j], names) + "; the model needs the features " +
                      list_names(feature_names) + " and the file has the columns " +
                      list_names(names) + "; rename the column in the header");
    }
    source[j] = static_cast<std::size_t>(it - names.begin());
  }

  std::vector<double> inputs;
  std::vector<data::CsvCell> cells;
  std::size_t rows = 0;
  while (scanner.next_row(cells)) {
    for (std::size_t j = 0; j < source.size(); ++j) {
      inputs.push_back(data::parse_number(scanner, cells[source[j]], names[source[j]]));
    }
    ++rows;
  }
  require_rows(scanner, rows);
  return to_matrix(inputs, rows, feature_names.size());
}

Dataset read_dataset(const std::filesystem::path& file, const DataOptions& options) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".npy") return data::read_npy(file, options);
  return read_csv(file, options);
}

}  // namespace radial
