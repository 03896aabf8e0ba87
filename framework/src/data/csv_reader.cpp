// read_csv, read_inputs_csv, read_dataset and their shards (read_dataset_shard,
// read_inputs_shard) of radial/data/data_reader.hpp.

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include "arff_reader.hpp"
#include "../distributed/block_shards.hpp"
#include "csv_scanner.hpp"
#include "csv_shard.hpp"
#include "libsvm_reader.hpp"
#include "nominal_columns.hpp"
#include "data_format.hpp"
#include "npy_reader.hpp"
#include "row_store.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/params.hpp"
#include "radial/exec/parallel.hpp"
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
  return data::format_of(file) == data::DataFormat::Npy;
}

bool is_arff(const std::filesystem::path& file) {
  return data::format_of(file) == data::DataFormat::Arff;
}

bool is_libsvm(const std::filesystem::path& file) {
  return data::format_of(file) == data::DataFormat::Libsvm;
}

void require_rows(const data::CsvScanner& scanner, std::size_t rows) {
  if (rows == 0) {
    throw DataError(scanner.name() + ":2:1: no data rows after the header; add at least one "
                    "row of values");
  }
}

// The target column's index among the header's `names` (DataOptions::target, else the last).
std::size_t target_index(const data::CsvScanner& scanner, const std::vector<std::string>& names,
                         const DataOptions& options) {
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
  return target;
}

// The file columns holding `feature_names`, in their order (extra columns ignored).
std::vector<std::size_t> input_columns(const data::CsvScanner& scanner,
                                       const std::vector<std::string>& names,
                                       const std::vector<std::string>& feature_names) {
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
  return source;
}

// The rows of a CSV data set being read: inputs, target values, and each target cell's column
// (kept for messages about labels).
struct CsvRows {
  explicit CsvRows(data::NominalColumns nominal_columns) : nominal(std::move(nominal_columns)) {}
  data::NominalColumns nominal;  // input columns read as categories
  data::RowStore inputs, targets;
  std::vector<std::uint32_t> target_column;
  std::size_t rows = 0;
  data::TextLabels labels;  // active once the target column is known to hold text labels
};

// The cell's text as a category or label: a quoted cell's "" read as one quote, an unquoted
// cell with its surrounding spaces (RFC 4180 and Python's csv keep them: " red" is not "red").
std::string cell_text(const data::CsvCell& cell) {
  if (!cell.quoted) return std::string(cell.spaced);
  std::string out;
  for (std::size_t i = 0; i < cell.text.size(); ++i) {
    out += cell.text[i];
    if (cell.text[i] == '"') ++i;
  }
  return out;
}

// Pushes the target cell of the current row: a number, or (text labels) the id of its text.
// The first cell that is not a number turns the column to text, unless the task is regression.
// A missing target (a missing marker, unquoted) is never a label: NaN when data.missing allows
// missing values (the row is then left out and counted), else an error at the cell.
void push_target(const data::CsvScanner& scanner, const data::CsvCell& cell,
                 const std::string& name, bool numbers_only, bool allow_missing, CsvRows& out) {
  if (!cell.quoted && is_missing_marker(cell.text)) {
    if (allow_missing) {
      out.targets.push(std::numeric_limits<double>::quiet_NaN());
      return;
    }
    throw DataError(scanner.where(cell.column) + ": missing target value \"" +
                    data::escaped(cell.text) + "\" in column '" + data::escaped(name) +
                    "'; every row needs its target: remove the row, or set data.missing = "
                    "\"drop-rows\" to leave such rows out");
  }
  if (!out.labels.active() && (numbers_only || data::reads_as_number(cell.text))) {
    out.targets.push(data::parse_number(scanner, cell, name));
    return;
  }
  if (!out.labels.active()) out.labels.start(out.rows);
  out.targets.push(out.labels.id(cell_text(cell)));
}

// The fast path of a row: every cell a plain decimal number (parse_decimal_prefix) between
// commas, nothing else. The commas are found first (data::find_commas), so that the cells are
// parsed independently of each other; fills values and the 1-based character column where each
// cell starts. false for anything else (spaces, quotes, other numbers, another cell count),
// which the general path reads or reports.
bool plain_row(std::string_view text, std::vector<double>& values,
               std::vector<std::uint32_t>& columns, std::vector<std::uint32_t>& commas) {
  const std::size_t n = values.size();
  if (text.size() >= UINT32_MAX || !data::find_commas(text, commas, n - 1)) return false;
  const char* const base = text.data();
  std::uint32_t begin = 0;
  bool ok = true;
  for (std::size_t c = 0; c < n; ++c) {
    const std::uint32_t end = c + 1 < n ? commas[c] : std::uint32_t(text.size());
    columns[c] = begin + 1;
    ok &= data::parse_decimal_prefix(base + begin, base + end, values[c], base + text.size()) ==
          base + end;
    begin = end + 1;
  }
  return ok;
}

// Parses every row the scanner returns (the file, or a shard's range) into `out`.
// `counted`: the rows still to come, when the caller counted them (and reserved the inputs).
void read_rows(data::CsvScanner& scanner, const std::vector<std::string>& names,
               std::size_t target, const DataOptions& options, CsvRows& out,
               std::optional<std::size_t> counted = std::nullopt) {
  // Text labels are read as text from the first row; regression reads only numbers.
  const bool numbers_only = options.task == Task::Regression;
  if (options.class_names) out.labels.start(0);
  std::vector<data::CsvCell> cells;
  std::vector<double> values(scanner.columns());
  std::vector<std::uint32_t> columns(scanner.columns()), commas;
  // Counted first, the rows go straight into the matrix that holds them (no second copy). A
  // count that the file's bytes cannot hold (every cell takes at least two: a digit and a comma)
  // is a malformed file, refused row by row below: nothing is reserved for it.
  std::size_t expected = counted ? *counted : scanner.count_rows_left();
  if (expected > scanner.size() / (2 * scanner.columns())) expected = 0;
  out.inputs.reserve(expected * (scanner.columns() - 1));
  out.targets.reserve(expected);
  out.target_column.reserve(expected);
  std::string_view text;
  while (scanner.next_data_line(text)) {
    if (out.rows == 0 && expected == 0)
      out.target_column.reserve(scanner.estimated_rows_left() + 1);
    if (!out.nominal.any() && plain_row(text, values, columns, commas)) {
      for (std::size_t c = 0; c < values.size(); ++c)
        if (c != target) out.inputs.push(values[c]);
      if (out.labels.active()) {
        const std::size_t begin = columns[target] - 1;
        const std::size_t end = target + 1 < values.size() ? commas[target] : text.size();
        out.targets.push(out.labels.id(text.substr(begin, end - begin)));
      } else {
        out.targets.push(values[target]);
      }
      out.target_column.push_back(columns[target]);
      ++out.rows;
      continue;
    }
    scanner.cells_of(text, cells);
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c == target) {
        push_target(scanner, cells[c], names[c], numbers_only, options.allow_missing, out);
        out.target_column.push_back(
            std::uint32_t(std::min<std::size_t>(cells[c].column, UINT32_MAX)));
      } else {
        const std::size_t j = c < target ? c : c - 1;  // the input column
        out.inputs.push(out.nominal.value(scanner, j, cells[c], cell_text(cells[c]), out.rows));
      }
    }
    ++out.rows;
  }
}

// Parses the columns `source` of every row the scanner returns into `inputs`; the row count.
std::size_t read_input_rows(data::CsvScanner& scanner, const std::vector<std::string>& names,
                            const std::vector<std::size_t>& source, data::RowStore& inputs,
                            data::NominalColumns* nominal = nullptr) {
  std::vector<data::CsvCell> cells;
  std::vector<double> values(scanner.columns());
  std::vector<std::uint32_t> columns(scanner.columns()), commas;
  std::string_view text;
  std::size_t rows = 0;
  const std::size_t expected = scanner.count_rows_left();  // as in read_rows
  if (expected <= scanner.size() / (2 * scanner.columns())) inputs.reserve(expected * source.size());
  // Missing markers are not plain numbers: the fast path never meets them.
  const bool coded = nominal != nullptr && nominal->any();
  while (scanner.next_data_line(text)) {
    if (!coded && plain_row(text, values, columns, commas)) {
      for (std::size_t j = 0; j < source.size(); ++j) inputs.push(values[source[j]]);
      ++rows;
      continue;
    }
    scanner.cells_of(text, cells);
    for (std::size_t j = 0; j < source.size(); ++j) {
      const data::CsvCell& cell = cells[source[j]];
      inputs.push(nominal != nullptr ? nominal->value(scanner, j, cell, cell_text(cell), rows)
                                     : data::parse_number(scanner, cell, names[source[j]]));
    }
    ++rows;
  }
  return rows;
}

// The nominal columns of a data set being read: data.nominal (each an input column), or the
// training set's coding (its raw columns must be this file's inputs, in order).
data::NominalColumns nominal_columns(const data::CsvScanner& scanner,
                                     const std::vector<std::string>& names, std::size_t target,
                                     const DataOptions& options) {
  std::vector<std::string> inputs;
  for (std::size_t c = 0; c < names.size(); ++c)
    if (c != target) inputs.push_back(names[c]);
  std::vector<bool> forced(inputs.size(), false);
  for (const std::string& name : options.nominal) {
    const auto it = std::find(inputs.begin(), inputs.end(), name);
    if (it == inputs.end()) {
      throw DataError(scanner.name() + ":1:1: data.nominal names '" + data::escaped(name) +
                      "', which is not an input column" + hint(name, inputs) +
                      "; the input columns are " + list_names(inputs));
    }
    forced[std::size_t(it - inputs.begin())] = true;
  }
  const InputCoding* coding = options.coding && !options.coding->empty() ? &*options.coding : nullptr;
  if (coding != nullptr && !data::same_columns(*coding, inputs)) {
    throw DataError(scanner.name() + ":1:1: the input columns " + list_names(inputs) +
                    " differ from the training data's " + list_names(coding->raw_names) +
                    ", whose nominal columns are coded by name and order; give the same columns");
  }
  // Data start on line 2 (blank lines end them).
  return data::NominalColumns(std::move(inputs), forced, coding, 2, options.allow_missing);
}

// A data set named after the header, without rows yet.
Dataset named_dataset(const std::filesystem::path& file, const std::vector<std::string>& names,
                      std::size_t target) {
  Dataset data;
  data.source = file.string();
  data.target_name = names[target];
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (c != target) data.feature_names.push_back(names[c]);
  }
  return data;
}

// Where target value i of `rows` is, row i being on line first_line + i.
std::function<std::string(std::size_t)> target_where(const data::CsvScanner& scanner,
                                                     const CsvRows& rows, std::size_t first_line) {
  return [&scanner, &rows, first_line](std::size_t i) {
    return scanner.name() + ":" + std::to_string(first_line + i) + ":" +
           std::to_string(rows.target_column[i]);
  };
}

// The scanner of a shard of `file`: opened and its header read by every rank (a stream refused),
// and restricted to this rank's range. Collective.
struct ShardScanner {
  std::optional<data::CsvScanner> scanner;
  std::vector<std::string> names;
  data::CsvShard shard;
};

void open_shard(ShardScanner& s, const std::filesystem::path& file,
                const std::function<void(const data::CsvScanner&)>& check_header) {
  agreed([&] {
    s.scanner.emplace(file);
    // The header first: an empty file is "empty", not "a stream" (its size, 0, is a stream's).
    s.names = s.scanner->header();
    data::require_shardable(s.scanner->regular(), s.scanner->name(), collectives().size());
    check_header(*s.scanner);
  });
  s.shard = data::plan_csv_shard(*s.scanner);
}

// "No data rows" judged on the rows of every rank (a rank may hold none).
void require_rows_over_ranks(const data::CsvScanner& scanner, std::size_t rows) {
  require_rows(scanner, std::size_t(count_over_ranks(rows)));
}

// The input columns whose cell in the file's first data row is text: those one process makes
// nominal (NominalColumns::value, first_line 2), appended to `nominal` (data.nominal) so that
// every rank of a sharded read codes them from its first row. Reads the first data line of
// `scanner`, positioned after the header (the shard's restrict_to then seeks to its range).
void add_first_row_nominal(data::CsvScanner& scanner, const std::vector<std::string>& names,
                           std::size_t target, std::vector<std::string>& nominal) {
  std::string_view text;
  if (!scanner.next_data_line(text)) return;
  std::vector<data::CsvCell> cells;
  scanner.cells_of(text, cells);
  for (std::size_t c = 0; c < cells.size() && c < names.size(); ++c) {
    if (c == target) continue;
    const data::CsvCell& cell = cells[c];
    if (!cell.quoted && is_missing_marker(cell.text)) continue;
    if (data::reads_as_number(cell.text)) continue;
    if (std::find(nominal.begin(), nominal.end(), names[c]) == nominal.end())
      nominal.push_back(names[c]);
  }
}

Dataset read_csv_shard(const std::filesystem::path& file, const DataOptions& options) {
  ShardScanner s;
  std::size_t target = 0;
  open_shard(s, file, [&](const data::CsvScanner& scanner) {
    target = target_index(scanner, s.names, options);
  });
  Dataset data = named_dataset(file, s.names, target);
  // Learning a coding: every rank reads the file's first data row, where one process finds the
  // columns of categories, and codes those columns from its first row (the categories are
  // then the union over ranks, code_inputs).
  DataOptions shard_options = options;
  const bool learning = !(options.coding && !options.coding->empty());
  std::optional<CsvRows> rows_of;
  agreed([&] {
    if (learning) add_first_row_nominal(*s.scanner, s.names, target, shard_options.nominal);
    rows_of.emplace(nominal_columns(*s.scanner, s.names, target, shard_options));
  });
  CsvRows& rows = *rows_of;
  Vector targets;
  agreed([&] {
    s.scanner->restrict_to(s.shard.begin, s.shard.end, s.shard.first_line, s.shard.blank_line);
    read_rows(*s.scanner, s.names, target, options, rows);
  });
  data::code_inputs(data, rows.nominal, rows.inputs, rows.rows, options, s.scanner->name(), true);
  targets = rows.targets.into_vector();
  require_rows_over_ranks(*s.scanner, rows.rows);
  data::code_labels_shard(data, std::move(targets), rows.labels, options,
                          target_where(*s.scanner, rows, s.shard.first_line));
  // After coding: its messages name lines by the rows as read.
  data::move_to_block_shards(data);
  return data;
}

Matrix read_inputs_csv_shard(const std::filesystem::path& file,
                             const std::vector<std::string>& feature_names,
                             const InputCoding* coding = nullptr,
                             bool allow_missing = false) {
  ShardScanner s;
  std::vector<std::size_t> source;
  open_shard(s, file, [&](const data::CsvScanner& scanner) {
    source = input_columns(scanner, s.names, feature_names);
  });
  std::size_t rows = 0;
  Matrix inputs;
  agreed([&] {
    s.scanner->restrict_to(s.shard.begin, s.shard.end, s.shard.first_line, s.shard.blank_line);
    data::RowStore store;
    std::optional<data::NominalColumns> nominal;
    if (coding != nullptr || allow_missing)
      nominal.emplace(feature_names, std::vector<bool>(), coding, 0, allow_missing);
    rows = read_input_rows(*s.scanner, s.names, source, store, nominal ? &*nominal : nullptr);
    inputs = store.into_matrix(rows, feature_names.size());
    if (coding != nullptr) inputs = encode_inputs(inputs, *coding);
  });
  require_rows_over_ranks(*s.scanner, rows);
  data::move_to_block_shards(inputs, nullptr, nullptr);
  return inputs;
}

// What read_rows_in_parts gives: the inputs, in file order, and the targets' values and cells.
struct PartedRows {
  Matrix inputs;
  Vector targets;
  std::vector<std::uint32_t> target_column;  // for messages about the targets
};

// read_rows over byte ranges of the file at once (csv_shard.hpp's ranges, one thread each),
// each part's inputs written straight into their rows of one matrix. Only for what a part can
// read alone: numeric targets and inputs (no nominal column, given or found) and no error;
// empty otherwise, having kept nothing, and read_csv then reads the file in one pass (which
// reports any error at its place, and codes text).
std::optional<PartedRows> read_rows_in_parts(const std::filesystem::path& file,
                                             const data::CsvScanner& scanner,
                                             const std::vector<std::string>& names,
                                             std::size_t target, const DataOptions& options) {
  if (!scanner.regular() || options.class_names || !options.nominal.empty() ||
      (options.coding && !options.coding->empty()))
    return std::nullopt;
  const std::uint64_t bytes = scanner.size() - std::min(scanner.size(), scanner.offset());
  const auto parts = std::size_t(std::min<std::uint64_t>(
      std::uint64_t(resolve_threads(options.threads)),
      bytes / std::max<std::uint64_t>(options.part_bytes, 1)));
  if (parts < 2) return std::nullopt;
  std::vector<data::CsvPart> plan;
  try {
    plan = data::split_csv_parts(scanner, parts);
  } catch (const DataError&) {
    return std::nullopt;  // a line too long for a part: the one pass says where
  }
  // Blank lines followed by data in a later part: an error the one pass reports.
  for (std::size_t r = 0; r + 1 < parts; ++r)
    if (plan[r].blank_tail)
      for (std::size_t q = r + 1; q < parts; ++q)
        if (plan[q].has_content) return std::nullopt;
  const std::size_t f = names.size() - 1;

  struct Part {
    std::optional<data::CsvScanner> scanner;
    std::optional<CsvRows> rows;
    std::size_t counted = 0;
    bool failed = false;
  };
  std::vector<Part> part(parts);
  const auto each_part = [&](const std::function<void(Part&)>& work) {
    parallel_for_blocks(parts, 1, int(parts), [&](std::size_t, const RowBlock& b) {
      Part& q = part[b.index];
      if (q.failed) return;
      try {
        work(q);
      } catch (const std::exception&) {
        q.failed = true;  // read again in one pass, which reports it where it is
      }
    });
  };
  // The parts' row counts, then each part parsed into its rows of the matrix.
  each_part([&](Part& q) {
    const data::CsvPart& range = plan[std::size_t(&q - part.data())];
    q.scanner.emplace(file);
    if (q.scanner->header() != names) throw DataError("the header changed");
    q.scanner->restrict_to(range.begin, range.end, 2, 0);
    q.counted = q.scanner->count_rows_left();
    q.rows.emplace(nominal_columns(*q.scanner, names, target, options));
  });
  std::size_t total = 0;
  for (const Part& q : part) {
    if (q.failed) return std::nullopt;
    total += q.counted;
  }
  // Line numbers: without blank lines before the last part's tail (any other is an error, read
  // in one pass), part r starts on line 2 + the rows of the parts before it; a count that CR
  // line ends made inexact is found below.
  std::size_t line = 2;
  for (std::size_t r = 0; r < parts; ++r) {
    part[r].scanner->restrict_to(plan[r].begin, plan[r].end, line, 0);
    line += part[r].counted;
  }
  PartedRows out{Matrix::from_shape({total, f}), Vector::from_shape({total}), {}};
  std::vector<std::size_t> first(parts, 0);
  for (std::size_t r = 1; r < parts; ++r) first[r] = first[r - 1] + part[r - 1].counted;
  each_part([&](Part& q) {
    const std::size_t r = std::size_t(&q - part.data());
    q.rows->inputs.reserve_in(out.inputs.data() + first[r] * f, q.counted * f);
    read_rows(*q.scanner, names, target, options, *q.rows, q.counted);
    if (q.rows->rows != q.counted || !q.rows->inputs.filled_in_place(q.counted * f) ||
        q.rows->labels.active() || q.rows->nominal.any())
      q.failed = true;  // rows the count missed (CR-only line ends), text labels, categories
  });
  for (const Part& q : part)
    if (q.failed) return std::nullopt;
  for (std::size_t r = 0; r < parts; ++r) {
    CsvRows& rows = *part[r].rows;
    const Vector t = rows.targets.into_vector();
    std::copy(t.begin(), t.end(), out.targets.begin() + std::ptrdiff_t(first[r]));
    out.target_column.insert(out.target_column.end(), rows.target_column.begin(),
                             rows.target_column.end());
  }
  return out;
}

}  // namespace

Dataset read_csv(const std::filesystem::path& file, const DataOptions& options) {
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  const std::size_t target = target_index(scanner, names, options);
  Dataset data = named_dataset(file, names, target);
  if (std::optional<PartedRows> parted = read_rows_in_parts(file, scanner, names, target, options)) {
    require_rows(scanner, parted->targets.size());
    data.inputs = std::move(parted->inputs);
    data::TextLabels numbers;  // the parts read numeric targets only
    const std::vector<std::uint32_t>& column = parted->target_column;
    data::code_labels(data, std::move(parted->targets), numbers, options, [&](std::size_t i) {
      return scanner.name() + ":" + std::to_string(2 + i) + ":" + std::to_string(column[i]);
    });
    return data;
  }
  // Row i is on line i + 2 (blank lines end the data).
  CsvRows rows(nominal_columns(scanner, names, target, options));
  read_rows(scanner, names, target, options, rows);
  require_rows(scanner, rows.rows);
  data::code_inputs(data, rows.nominal, rows.inputs, rows.rows, options, scanner.name());
  data::code_labels(data, rows.targets.into_vector(), rows.labels, options,
                    target_where(scanner, rows, 2));
  return data;
}

Matrix read_inputs_csv(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names) {
  if (is_npy(file)) return data::read_npy_inputs(file, feature_names);
  if (is_arff(file)) return data::read_arff_inputs(file, feature_names);
  if (is_libsvm(file)) return data::read_libsvm_inputs(file, feature_names);
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  const std::vector<std::size_t> source = input_columns(scanner, names, feature_names);
  data::RowStore inputs;
  const std::size_t rows = read_input_rows(scanner, names, source, inputs);
  require_rows(scanner, rows);
  return inputs.into_matrix(rows, feature_names.size());
}

Dataset read_dataset(const std::filesystem::path& file, const DataOptions& options) {
  if (is_npy(file)) return data::read_npy(file, options);
  if (is_arff(file)) return data::read_arff(file, options);
  if (is_libsvm(file)) return data::read_libsvm(file, options);
  return read_csv(file, options);
}

// Before a rank opens its shard: a FIFO or device cannot be split (and opening a FIFO would
// wait for a writer on every rank), so it is refused by its type. Collective.
void require_regular_for_ranks(const std::filesystem::path& file) {
  agreed([&] {
    std::error_code error;
    const auto status = std::filesystem::status(file, error);
    const bool special = std::filesystem::exists(status) &&
                         !std::filesystem::is_regular_file(status) &&
                         !std::filesystem::is_directory(status);
    data::require_shardable(!special, file.string(), collectives().size());
  });
}

Dataset read_dataset_shard(const std::filesystem::path& file, const DataOptions& options) {
  if (collectives().size() == 1) return read_dataset(file, options);
  require_regular_for_ranks(file);
  if (is_npy(file)) return data::read_npy_shard(file, options);
  if (is_arff(file)) return data::read_arff_shard(file, options);
  if (is_libsvm(file)) return data::read_libsvm_shard(file, options);
  return read_csv_shard(file, options);
}

Matrix read_inputs_shard(const std::filesystem::path& file,
                         const std::vector<std::string>& feature_names) {
  if (collectives().size() == 1) return read_inputs_csv(file, feature_names);
  require_regular_for_ranks(file);
  if (is_npy(file)) return data::read_npy_inputs_shard(file, feature_names);
  if (is_arff(file)) return data::read_arff_inputs_shard(file, feature_names);
  if (is_libsvm(file)) return data::read_libsvm_inputs_shard(file, feature_names);
  return read_inputs_csv_shard(file, feature_names);
}

Matrix read_model_inputs(const std::filesystem::path& file,
                         const std::vector<std::string>& feature_names, const InputCoding& coding,
                         bool allow_missing) {
  const bool several = collectives().size() > 1;
  const bool plain_reader = is_npy(file) || is_libsvm(file);
  if (coding.empty() && is_npy(file)) {  // NaN a missing input when the model reads them
    if (!several) return data::read_npy_inputs(file, feature_names, allow_missing);
    require_regular_for_ranks(file);
    return data::read_npy_inputs_shard(file, feature_names, allow_missing);
  }
  if (coding.empty() && (!allow_missing || plain_reader))
    return several ? read_inputs_shard(file, feature_names) : read_inputs_csv(file, feature_names);
  if (plain_reader) {
    throw DataError(file.string() + ": the model codes nominal inputs (" +
                    list_names(feature_names) + "), which a " +
                    (is_npy(file) ? ".npy" : "LIBSVM") +
                    " file cannot hold; give the raw columns as CSV or ARFF");
  }
  // The raw columns: the coding's, or (no coding) the features themselves.
  const std::vector<std::string>& raw = coding.empty() ? feature_names : coding.raw_names;
  const InputCoding* codes = coding.empty() ? nullptr : &coding;
  if (is_arff(file)) {
    return several ? data::read_arff_inputs_shard(file, raw, codes, allow_missing)
                   : data::read_arff_inputs(file, raw, codes, allow_missing);
  }
  if (several) {
    require_regular_for_ranks(file);
    return read_inputs_csv_shard(file, raw, codes, allow_missing);
  }
  data::CsvScanner scanner(file);
  const std::vector<std::string> names = scanner.header();
  const std::vector<std::size_t> source = input_columns(scanner, names, raw);
  data::NominalColumns nominal(raw, std::vector<bool>(), codes, 0, allow_missing);
  data::RowStore inputs;
  const std::size_t rows = read_input_rows(scanner, names, source, inputs, &nominal);
  require_rows(scanner, rows);
  Matrix values = inputs.into_matrix(rows, raw.size());
  return codes != nullptr ? encode_inputs(values, coding) : values;
}

}  // namespace radial
