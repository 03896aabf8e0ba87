#include "libsvm_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

#include "../distributed/block_shards.hpp"
#include "csv_scanner.hpp"
#include "csv_shard.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/heap_policy.hpp"
#include "row_store.hpp"
#include "target_coding.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

// The networks hold their inputs dense: N x d doubles. A sparse file may describe far more than
// it holds (one row with index 10^6 is 8 MB a row), so the dense cells are limited to 64 per
// stored value (512 bytes for the 5 to 20 bytes a value takes in the file: a 3 MB file is at
// most about 300 MB dense; a dense-ish file is far below, while text collections like rcv1, 600
// times sparser than dense, would need many GB) or 2^22 cells, whichever is more, and to half
// the memory the system has available (one process).
constexpr std::size_t dense_cells_per_value = 64;
constexpr std::size_t min_dense_cells = std::size_t(1) << 22;
constexpr std::size_t max_index = max_sparse_features;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

struct SparseRows {
  RowStore entries;               // index, value, index, value, ... (row by row)
  std::vector<std::size_t> ends;  // pairs stored after each row
  RowStore targets;
  std::vector<std::size_t> lines;  // each row's line and label column, for messages
  std::vector<std::uint32_t> columns;
  std::size_t largest = 0;  // the largest index read
  TextLabels labels;
  std::size_t rows() const { return ends.size(); }
};

// Parses the lines the scanner returns. `limit` (0: none) is the most features allowed;
// `text_labels` reads labels as text (a model with text labels).
void read_rows(CsvScanner& scanner, std::size_t limit, bool text_labels, SparseRows& out) {
  if (text_labels) out.labels.start(0);
  std::string_view text;
  std::size_t stored = 0;
  while (scanner.next_raw_line(text)) {
    std::size_t i = 0;
    while (i < text.size() && is_space(text[i])) ++i;
    if (i == text.size() || text[i] == '#') continue;
    // The label.
    std::size_t end = i;
    while (end < text.size() && !is_space(text[end]) && text[end] != '#') ++end;
    CsvCell label;
    label.text = text.substr(i, end - i);
    label.column = i + 1;
    if (label.text.find(',') != std::string_view::npos) {
      throw DataError(scanner.where(label.column) + ": label \"" + escaped(label.text) +
                      "\" lists several labels (multi-label data); give one label per row");
    }
    if (label.text.find(':') != std::string_view::npos) {
      throw DataError(scanner.where(label.column) + ": the row starts with \"" +
                      escaped(label.text) +
                      "\", an index:value pair, not a label; each row is "
                      "LABEL INDEX:VALUE ...");
    }
    out.targets.push(text_labels ? out.labels.id(label.text)
                                 : parse_number(scanner, label, "label"));
    out.lines.push_back(scanner.line());
    out.columns.push_back(std::uint32_t(std::min<std::size_t>(label.column, UINT32_MAX)));
    // The index:value pairs.
    std::size_t previous = 0;
    for (i = end;;) {
      while (i < text.size() && is_space(text[i])) ++i;
      if (i == text.size() || text[i] == '#') break;
      const std::size_t start = i;
      while (i < text.size() && !is_space(text[i]) && text[i] != '#') ++i;
      const std::string_view pair = text.substr(start, i - start);
      if (pair.rfind("qid:", 0) == 0) continue;
      const std::size_t colon = pair.find(':');
      std::size_t index = 0, digits = 0;
      while (digits < pair.size() && pair[digits] >= '0' && pair[digits] <= '9') {
        if (index <= max_index) index = index * 10 + std::size_t(pair[digits] - '0');
        ++digits;
      }
      if (colon == std::string_view::npos || digits == 0 || digits != colon) {
        throw DataError(scanner.where(start + 1) + ": \"" + escaped(pair) +
                        "\" is not an index:value pair (a 1-based index, a colon and a "
                        "number, as 3:0.5)");
      }
      if (index == 0 || index > max_index || (limit != 0 && index > limit)) {
        const std::string most =
            limit != 0 ? std::to_string(limit) + " (data.features)" : std::to_string(max_index);
        throw DataError(scanner.where(start + 1) + ": index " + std::string(pair.substr(0, colon)) +
                        " is outside 1.." + most +
                        (index == 0 ? "; LIBSVM indices start at 1"
                                    : "; raise data.features "
                                      "or check the file"));
      }
      if (index <= previous) {
        throw DataError(scanner.where(start + 1) + ": index " + std::to_string(index) +
                        " does not follow index " + std::to_string(previous) +
                        " on this row; give indices in increasing order, each once");
      }
      previous = index;
      CsvCell value;
      value.text = pair.substr(colon + 1);
      value.column = start + colon + 2;
      out.entries.push(double(index));
      out.entries.push(parse_number(scanner, value, "x" + std::to_string(index)));
      out.largest = std::max(out.largest, index);
      ++stored;
    }
    out.ends.push_back(stored);
  }
}

// DataError when N x d dense inputs are far more than the file's values (see above).
void check_dense_size(const std::string& name, std::size_t rows, std::size_t features,
                      std::size_t values) {
  std::size_t allowed = std::max(min_dense_cells, dense_cells_per_value * values);
  // (One process only: ranks must agree, and each sees its own moment's memory.)
  const std::uint64_t available = collectives().size() == 1 ? available_memory() : 0;
  if (available != 0)
    allowed = std::min<std::uint64_t>(allowed, std::max<std::uint64_t>(min_dense_cells,
                                                                      available / 2 / sizeof(double)));
  if (features != 0 && rows > allowed / features) {
    throw DataError(name + ": " + std::to_string(rows) + " rows of " + std::to_string(features) +
                    " features would take " +
                    byte_count_text(std::uint64_t(rows) * features * sizeof(double)) +
                    " as the dense inputs Radial's networks need, for " + std::to_string(values) +
                    " stored values; reduce the features (the "
                    "largest index, or data.features)");
  }
}

// Index j -> the column it fills (a model's x<j>); indices not in the map are skipped.
using ColumnOf = std::map<std::size_t, std::size_t>;

// The rows as an N x columns matrix: value (index j) goes to column target[j], or without a
// map to column j - 1 (indices beyond `columns` skipped).
Matrix densify(SparseRows& rows, std::size_t columns, const ColumnOf* target) {
  const Vector entries = rows.entries.into_vector();
  Matrix x = Matrix::from_shape({rows.rows(), columns});
  x.fill(0.0);
  std::size_t at = 0;
  for (std::size_t r = 0; r < rows.rows(); ++r) {
    for (; at < rows.ends[r]; ++at) {
      const auto index = std::size_t(entries[2 * at]);
      if (target == nullptr) {
        if (index - 1 < columns) x(r, index - 1) = entries[2 * at + 1];
        continue;
      }
      const auto found = target->find(index);
      if (found != target->end() && found->second < columns)
        x(r, found->second) = entries[2 * at + 1];
    }
  }
  return x;
}

// Index j -> the model's column for it: names x<j> by number (nullopt: other names, which take
// the indices in order).
std::optional<ColumnOf> model_columns(const std::vector<std::string>& feature_names) {
  ColumnOf by_number;
  for (std::size_t c = 0; c < feature_names.size(); ++c) {
    const std::string& name = feature_names[c];
    std::size_t j = 0;
    bool numbered = name.size() > 1 && name.size() < 10 && name[0] == 'x';
    for (std::size_t k = 1; numbered && k < name.size(); ++k) {
      numbered = name[k] >= '0' && name[k] <= '9' && !(k == 1 && name[k] == '0');
      j = j * 10 + std::size_t(name[k] - '0');
    }
    if (!numbered) return std::nullopt;
    by_number[j] = c;
  }
  return by_number;
}

std::function<std::string(std::size_t)> label_where(const CsvScanner& scanner,
                                                    const SparseRows& rows) {
  return [&scanner, &rows](std::size_t i) {
    return scanner.name() + ":" + std::to_string(rows.lines[i]) + ":" +
           std::to_string(rows.columns[i]);
  };
}

void require_rows(const CsvScanner& scanner, std::size_t rows) {
  if (rows == 0)
    throw DataError(scanner.name() +
                    ":1:1: no data rows; a LIBSVM file holds one row per "
                    "line, LABEL INDEX:VALUE ...");
}

Dataset named_dataset(const std::filesystem::path& file, std::size_t d) {
  Dataset data;
  data.source = file.string();
  data.target_name = "label";
  // x1..xd, the number counted up in place (up to 2^20 names; to_string each took seconds under
  // the fuzzers' instrumentation).
  data.feature_names.reserve(d);
  std::string name = "x0";
  for (std::size_t j = 1; j <= d; ++j) {
    std::size_t at = name.size() - 1;
    while (name[at] == '9') name[at--] = '0';
    if (at == 0) name.insert(1, 1, '1');
    else ++name[at];
    data.feature_names.push_back(name);
  }
  return data;
}

std::size_t feature_count(const CsvScanner& scanner, std::size_t largest,
                          const DataOptions& options) {
  const std::size_t d = options.features.value_or(largest);
  if (d == 0)
    throw DataError(scanner.name() +
                    ": no row has an index:value pair, so the data have no "
                    "features; give data.features or rows with values");
  return d;
}

// Opens the file for this rank's byte range (every rank; a stream refused). Collective.
void open_shard(std::optional<CsvScanner>& scanner, const std::filesystem::path& file) {
  agreed([&] {
    scanner.emplace(file);
    scanner->set_format("LIBSVM");
    scanner->skip_byte_order_mark();
    require_shardable(scanner->regular(), scanner->name(), collectives().size());
  });
  CsvShard shard = plan_csv_shard(*scanner);
  shard.first_line -= 1;  // plan_csv_shard numbers the first data line 2, after a CSV header
  agreed([&] { scanner->restrict_to(shard.begin, shard.end, shard.first_line, 0); });
}

}  // namespace

Dataset read_libsvm(const std::filesystem::path& file, const DataOptions& options) {
  CsvScanner scanner(file);
  scanner.set_format("LIBSVM");
  scanner.skip_byte_order_mark();
  SparseRows rows;
  read_rows(scanner, options.features.value_or(0), options.class_names.has_value(), rows);
  require_rows(scanner, rows.rows());
  const std::size_t d = feature_count(scanner, rows.largest, options);
  check_dense_size(scanner.name(), rows.rows(), d, rows.ends.back());
  Dataset data = named_dataset(file, d);
  data.inputs = densify(rows, d, nullptr);
  code_labels(data, rows.targets.into_vector(), rows.labels, options, label_where(scanner, rows));
  return data;
}

Matrix read_libsvm_inputs(const std::filesystem::path& file,
                          const std::vector<std::string>& feature_names) {
  CsvScanner scanner(file);
  scanner.set_format("LIBSVM");
  scanner.skip_byte_order_mark();
  SparseRows rows;
  read_rows(scanner, 0, true, rows);  // labels as text: prediction files may hold any label
  require_rows(scanner, rows.rows());
  check_dense_size(scanner.name(), rows.rows(), feature_names.size(), rows.ends.back());
  const std::optional<ColumnOf> columns = model_columns(feature_names);
  return densify(rows, feature_names.size(), columns ? &*columns : nullptr);
}

Dataset read_libsvm_shard(const std::filesystem::path& file, const DataOptions& options) {
  if (collectives().size() == 1) return read_libsvm(file, options);
  std::optional<CsvScanner> scanner;
  open_shard(scanner, file);
  SparseRows rows;
  agreed([&] {
    read_rows(*scanner, options.features.value_or(0), options.class_names.has_value(), rows);
  });
  const auto total = std::size_t(count_over_ranks(rows.rows()));
  require_rows(*scanner, total);
  const auto largest = std::size_t(max_over_ranks(double(rows.largest)));
  const auto values = std::size_t(count_over_ranks(rows.ends.empty() ? 0 : rows.ends.back()));
  std::size_t d = 0;
  agreed([&] {
    d = feature_count(*scanner, largest, options);
    check_dense_size(scanner->name(), total, d, values);
  });
  Dataset data = named_dataset(file, d);
  data.inputs = densify(rows, d, nullptr);
  code_labels_shard(data, rows.targets.into_vector(), rows.labels, options,
                    label_where(*scanner, rows));
  move_to_block_shards(data);
  return data;
}

Matrix read_libsvm_inputs_shard(const std::filesystem::path& file,
                                const std::vector<std::string>& feature_names) {
  if (collectives().size() == 1) return read_libsvm_inputs(file, feature_names);
  std::optional<CsvScanner> scanner;
  open_shard(scanner, file);
  SparseRows rows;
  agreed([&] { read_rows(*scanner, 0, true, rows); });
  const auto total = std::size_t(count_over_ranks(rows.rows()));
  require_rows(*scanner, total);
  const auto values = std::size_t(count_over_ranks(rows.ends.empty() ? 0 : rows.ends.back()));
  agreed([&] { check_dense_size(scanner->name(), total, feature_names.size(), values); });
  const std::optional<ColumnOf> columns = model_columns(feature_names);
  Matrix inputs = densify(rows, feature_names.size(), columns ? &*columns : nullptr);
  move_to_block_shards(inputs, nullptr, nullptr);
  return inputs;
}

}  // namespace radial::data
