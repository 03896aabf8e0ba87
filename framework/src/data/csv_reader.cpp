// read_csv, read_inputs_csv and read_dataset of radial/data_reader.hpp.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include "csv_scanner.hpp"
#include "npy_reader.hpp"
#include "row_store.hpp"
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
    out += data::escaped(names[c]);
  }
  if (names.size() > shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

std::string hint(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string close = did_you_mean(word, candidates);
  return close.empty() ? std::string() : " (did you mean '" + data::escaped(close) + "'?)";
}

bool is_npy(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".npy";
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
    throw DataError(header_at + ": only one column ('" + data::escaped(names.front()) +
                    "'); a data file needs at least one input column besides the target");
  }
  std::size_t target = names.size() - 1;
  if (!options.target.empty()) {
    const auto it = std::find(names.begin(), names.end(), options.target);
    if (it == names.end()) {
      throw DataError(header_at + ": no target column '" + data::escaped(options.target) + "'" +
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

  data::RowStore inputs, targets;
  // Row i is on line i + 2 (blank lines end the data); its target cell's column is kept for
  // messages about labels.
  std::vector<std::uint32_t> target_column;
  std::vector<data::CsvCell> cells;
  std::size_t rows = 0;
  while (scanner.next_row(cells)) {
    if (rows == 0) target_column.reserve(scanner.estimated_rows_left() + 1);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const double value = data::parse_number(scanner, cells[c], names[c]);
      if (c == target) {
        targets.push(value);
        target_column.push_back(std::uint32_t(std::min<std::size_t>(cells[c].column, UINT32_MAX)));
      } else {
        inputs.push(value);
      }
    }
    ++rows;
  }
  require_rows(scanner, rows);

  data.inputs = inputs.into_matrix(rows, d);
  data::code_target(data, targets.into_vector(), options, [&](std::size_t i) {
    return scanner.name() + ":" + std::to_string(i + 2) + ":" + std::to_string(target_column[i]);
  });
  return data;
}

Matrix read_inputs_csv(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names) {
  if (is_npy(file)) return data::read_npy_inputs(file, feature_names);
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  // source[j]: the file column holding feature j.
  std::vector<std::size_t> source(feature_names.size());
  for (std::size_t j = 0; j < feature_names.size(); ++j) {
    const auto it = std::find(names.begin(), names.end(), feature_names[j]);
    if (it == names.end()) {
      throw DataError(scanner.name() + ":1:1: no column '" + data::escaped(feature_names[j]) + "'" +
                      hint(feature_names[j], names) + "; the model needs the features " +
                      list_names(feature_names) + " and the file has the columns " +
                      list_names(names) + "; rename the column in the header");
    }
    source[j] = static_cast<std::size_t>(it - names.begin());
  }

  data::RowStore inputs;
  std::vector<data::CsvCell> cells;
  std::size_t rows = 0;
  while (scanner.next_row(cells)) {
    for (std::size_t j = 0; j < source.size(); ++j) {
      inputs.push(data::parse_number(scanner, cells[source[j]], names[source[j]]));
    }
    ++rows;
  }
  require_rows(scanner, rows);
  return inputs.into_matrix(rows, feature_names.size());
}

Dataset read_dataset(const std::filesystem::path& file, const DataOptions& options) {
  if (is_npy(file)) return data::read_npy(file, options);
  return read_csv(file, options);
}

}  // namespace radial
