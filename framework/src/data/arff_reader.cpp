#include "arff_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "arff_format.hpp"
#include "../distributed/block_shards.hpp"
#include "csv_scanner.hpp"
#include "csv_shard.hpp"
#include "nominal_columns.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/core/params.hpp"
#include "row_store.hpp"
#include "target_coding.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

using Kind = ArffAttribute::Kind;

std::string attribute_list(const ArffHeader& header) {
  std::string out;
  for (std::size_t a = 0; a < header.attributes.size() && a < 20; ++a)
    out += (a ? ", " : "") + escaped(header.attributes[a].name);
  if (header.attributes.size() > 20)
    out += ", ... (" + std::to_string(header.attributes.size()) + " in all)";
  return out;
}

std::vector<std::string> attribute_names(const ArffHeader& header) {
  std::vector<std::string> names;
  for (const ArffAttribute& a : header.attributes) names.push_back(a.name);
  return names;
}

// The index of the attribute called `name`; DataError at `line` naming the attributes.
std::size_t attribute_index(const CsvScanner& scanner, const ArffHeader& header,
                            const std::string& name, std::size_t line, const std::string& role) {
  for (std::size_t a = 0; a < header.attributes.size(); ++a)
    if (header.attributes[a].name == name) return a;
  const std::string close = did_you_mean(name, attribute_names(header));
  throw DataError(scanner.name() + ":" + std::to_string(line) + ":1: no attribute '" +
                  escaped(name) + "'" +
                  (close.empty() ? std::string() : " (did you mean '" + escaped(close) + "'?)") +
                  "; the attributes are " + attribute_list(header) + "; " + role);
}

// An input attribute is numeric or nominal (coded 1-of-C): string inputs are refused at their
// declaration.
void require_input_kind(const CsvScanner& scanner, const ArffAttribute& attribute) {
  if (attribute.kind != Kind::String) return;
  throw DataError(scanner.name() + ":" + std::to_string(attribute.line) + ":1: input attribute '" +
                  escaped(attribute.name) +
                  "' is a string; Radial reads numeric and nominal input attributes: declare its "
                  "values as {a, b, ...} or leave it out");
}

struct ArffRows {
  explicit ArffRows(NominalColumns columns) : nominal(std::move(columns)) {}
  NominalColumns nominal;
  RowStore inputs, targets;
  std::vector<std::size_t> lines;      // each row's line, for messages about its label
  std::vector<std::uint32_t> columns;  // and its label's column
  std::size_t rows = 0;
  TextLabels labels;
};

double number(const CsvScanner& scanner, const ArffAttribute& attribute, const ArffValue& value) {
  if (value.missing) {
    throw DataError(scanner.where(value.column) + ": missing value ('?') for attribute '" +
                    escaped(attribute.name) + "'; fill it in or remove the row");
  }
  CsvCell cell;
  cell.text = value.text;
  cell.column = std::max<std::size_t>(value.column, 1);
  return parse_number(scanner, cell, attribute.name);
}

// An input value: a number, or a nominal attribute's category (declared, then coded).
double input_value(const CsvScanner& scanner, const ArffAttribute& attribute,
                   const ArffValue& value, std::size_t j, std::size_t row,
                   NominalColumns& nominal) {
  if (value.missing) {
    if (nominal.allows_missing()) return std::numeric_limits<double>::quiet_NaN();
    return number(scanner, attribute, value);  // refuses `?`
  }
  if (attribute.kind == Kind::Nominal) nominal_index(scanner, attribute, value);
  CsvCell cell;
  cell.text = value.text;
  cell.column = std::max<std::size_t>(value.column, 1);
  // ARFF's only missing mark is a bare `?` (value.missing, above): a declared value `NA` or
  // `nan`, or a quoted '?', is a value, so the CSV markers must not apply.
  cell.quoted = true;
  return nominal.value(scanner, j, cell, value.text, row);
}

void read_rows(CsvScanner& scanner, const ArffHeader& header, std::size_t target,
               const DataOptions& options, ArffRows& out) {
  const ArffAttribute& goal = header.attributes[target];
  const bool text_target = goal.kind != Kind::Numeric || options.class_names.has_value();
  if (text_target) out.labels.start(0);
  std::vector<ArffValue> row;
  while (next_arff_row(scanner, header, row)) {
    for (std::size_t a = 0, j = 0; a < row.size(); ++a)
      if (a != target)
        out.inputs.push(
            input_value(scanner, header.attributes[a], row[a], j++, out.rows, out.nominal));
    const ArffValue& label = row[target];
    if (label.missing) {
      throw DataError(scanner.where(label.column) + ": missing class value ('?') for '" +
                      escaped(goal.name) +
                      "'; a training or test row needs its target: remove "
                      "the row");
    }
    if (label.column == 0 && goal.kind == Kind::String) {
      // Omitted in a sparse row: ARFF's omitted value is 0, which a string cannot hold.
      throw DataError(scanner.where(1) + ": this sparse row omits the string target '" +
                      escaped(goal.name) + "'; give every row its label (\"{..., " +
                      std::to_string(target) + " label}\")");
    }
    if (goal.kind == Kind::Nominal) nominal_index(scanner, goal, label);  // declared?
    out.targets.push(text_target ? out.labels.id(label.text) : number(scanner, goal, label));
    out.lines.push_back(scanner.line());
    out.columns.push_back(std::uint32_t(std::min<std::size_t>(label.column, UINT32_MAX)));
    ++out.rows;
  }
}

// The target attribute (options.target, else the last), and every other attribute numeric.
std::size_t target_attribute(const CsvScanner& scanner, const ArffHeader& header,
                             const DataOptions& options) {
  if (header.attributes.size() < 2) {
    throw DataError(scanner.name() + ":" + std::to_string(header.attributes.front().line) +
                    ":1: only one attribute; a data file needs at least one input besides the "
                    "target");
  }
  std::size_t target = header.attributes.size() - 1;
  if (!options.target.empty())
    target = attribute_index(scanner, header, options.target, header.data_line,
                             "set data.target to one of them");
  for (std::size_t a = 0; a < header.attributes.size(); ++a)
    if (a != target) require_input_kind(scanner, header.attributes[a]);
  return target;
}

// The nominal attributes among the inputs (declared nominal, or named in data.nominal), or the
// training set's coding, whose raw columns must be these inputs in order.
NominalColumns nominal_columns(const CsvScanner& scanner, const ArffHeader& header,
                               std::size_t target, const DataOptions& options) {
  std::vector<std::string> inputs;
  std::vector<bool> forced;
  for (std::size_t a = 0; a < header.attributes.size(); ++a) {
    if (a == target) continue;
    const ArffAttribute& attribute = header.attributes[a];
    inputs.push_back(attribute.name);
    forced.push_back(attribute.kind == Kind::Nominal ||
                     std::find(options.nominal.begin(), options.nominal.end(), attribute.name) !=
                         options.nominal.end());
  }
  for (const std::string& name : options.nominal)
    if (std::find(inputs.begin(), inputs.end(), name) == inputs.end())
      attribute_index(scanner, header, name, header.data_line,
                      "data.nominal names input "
                      "attributes");
  const InputCoding* coding =
      options.coding && !options.coding->empty() ? &*options.coding : nullptr;
  if (coding != nullptr && !same_columns(*coding, inputs)) {
    throw DataError(scanner.name() + ":" + std::to_string(header.data_line) +
                    ":1: the input attributes differ from the training data's, whose nominal "
                    "inputs are coded by name and order; give the same attributes");
  }
  return NominalColumns(std::move(inputs), forced, coding, 0, options.allow_missing);
}

Dataset named_dataset(const std::filesystem::path& file, const ArffHeader& header,
                      std::size_t target) {
  Dataset data;
  data.source = file.string();
  data.target_name = header.attributes[target].name;
  for (std::size_t a = 0; a < header.attributes.size(); ++a)
    if (a != target) data.feature_names.push_back(header.attributes[a].name);
  return data;
}

std::function<std::string(std::size_t)> label_where(const CsvScanner& scanner,
                                                    const ArffRows& rows) {
  return [&scanner, &rows](std::size_t i) {
    return scanner.name() + ":" + std::to_string(rows.lines[i]) + ":" +
           std::to_string(std::max<std::uint32_t>(rows.columns[i], 1));
  };
}

void require_rows(const CsvScanner& scanner, const ArffHeader& header, std::size_t rows) {
  if (rows == 0) {
    throw DataError(scanner.name() + ":" + std::to_string(header.data_line + 1) +
                    ":1: no data rows after @data; add at least one row");
  }
}

// The attributes holding `feature_names`, each numeric.
std::vector<std::size_t> input_attributes(const CsvScanner& scanner, const ArffHeader& header,
                                          const std::vector<std::string>& feature_names) {
  std::vector<std::size_t> source;
  for (const std::string& name : feature_names) {
    const std::size_t a = attribute_index(scanner, header, name, header.data_line,
                                          "the model needs every one of its features");
    require_input_kind(scanner, header.attributes[a]);
    source.push_back(a);
  }
  return source;
}

std::size_t read_input_rows(CsvScanner& scanner, const ArffHeader& header,
                            const std::vector<std::size_t>& source, RowStore& inputs,
                            NominalColumns& nominal) {
  std::vector<ArffValue> row;
  std::size_t rows = 0;
  while (next_arff_row(scanner, header, row)) {
    for (std::size_t j = 0; j < source.size(); ++j) {
      const std::size_t a = source[j];
      inputs.push(input_value(scanner, header.attributes[a], row[a], j, rows, nominal));
    }
    // The other attributes are not used, but a nominal value must still be one declared.
    for (std::size_t a = 0; a < row.size(); ++a)
      if (header.attributes[a].kind == Kind::Nominal && !row[a].missing)
        nominal_index(scanner, header.attributes[a], row[a]);
    ++rows;
  }
  return rows;
}

// Every rank reads the header, then only the lines of its byte range of the data. Collective.
struct ArffShard {
  std::optional<CsvScanner> scanner;
  ArffHeader header;
};

void open_shard(ArffShard& s, const std::filesystem::path& file,
                const std::function<void()>& check_header) {
  agreed([&] {
    s.scanner.emplace(file);
    s.header = read_arff_header(*s.scanner);
    require_shardable(s.scanner->regular(), s.scanner->name(), collectives().size());
    check_header();
  });
  CsvShard shard = plan_csv_shard(*s.scanner);
  // plan_csv_shard numbers the first data line 2 (after a one-line CSV header).
  shard.first_line += s.header.data_line - 1;
  agreed([&] { s.scanner->restrict_to(shard.begin, shard.end, shard.first_line, 0); });
}

}  // namespace

Dataset read_arff(const std::filesystem::path& file, const DataOptions& options) {
  CsvScanner scanner(file);
  const ArffHeader header = read_arff_header(scanner);
  const std::size_t target = target_attribute(scanner, header, options);
  Dataset data = named_dataset(file, header, target);
  ArffRows rows(nominal_columns(scanner, header, target, options));
  read_rows(scanner, header, target, options, rows);
  require_rows(scanner, header, rows.rows);
  code_inputs(data, rows.nominal, rows.inputs, rows.rows, options, scanner.name());
  code_labels(data, rows.targets.into_vector(), rows.labels, options, label_where(scanner, rows));
  return data;
}

Matrix read_arff_inputs(const std::filesystem::path& file,
                        const std::vector<std::string>& feature_names, const InputCoding* coding,
                        bool allow_missing) {
  CsvScanner scanner(file);
  const ArffHeader header = read_arff_header(scanner);
  const std::vector<std::size_t> source = input_attributes(scanner, header, feature_names);
  NominalColumns nominal(feature_names, {}, coding, 0, allow_missing);
  RowStore inputs;
  const std::size_t rows = read_input_rows(scanner, header, source, inputs, nominal);
  require_rows(scanner, header, rows);
  Matrix raw = inputs.into_matrix(rows, feature_names.size());
  return coding != nullptr ? encode_inputs(raw, *coding) : raw;
}

Dataset read_arff_shard(const std::filesystem::path& file, const DataOptions& options) {
  if (collectives().size() == 1) return read_arff(file, options);
  ArffShard s;
  std::size_t target = 0;
  open_shard(s, file, [&] { target = target_attribute(*s.scanner, s.header, options); });
  Dataset data = named_dataset(file, s.header, target);
  std::optional<ArffRows> rows_of;
  agreed([&] { rows_of.emplace(nominal_columns(*s.scanner, s.header, target, options)); });
  ArffRows& rows = *rows_of;
  Vector targets;
  agreed([&] { read_rows(*s.scanner, s.header, target, options, rows); });
  code_inputs(data, rows.nominal, rows.inputs, rows.rows, options, s.scanner->name(), true);
  targets = rows.targets.into_vector();
  require_rows(*s.scanner, s.header, std::size_t(count_over_ranks(rows.rows)));
  code_labels_shard(data, std::move(targets), rows.labels, options, label_where(*s.scanner, rows));
  move_to_block_shards(data);
  return data;
}

Matrix read_arff_inputs_shard(const std::filesystem::path& file,
                              const std::vector<std::string>& feature_names,
                              const InputCoding* coding, bool allow_missing) {
  if (collectives().size() == 1)
    return read_arff_inputs(file, feature_names, coding, allow_missing);
  ArffShard s;
  std::vector<std::size_t> source;
  open_shard(s, file, [&] { source = input_attributes(*s.scanner, s.header, feature_names); });
  std::size_t rows = 0;
  Matrix inputs;
  agreed([&] {
    RowStore store;
    NominalColumns nominal(feature_names, {}, coding, 0, allow_missing);
    rows = read_input_rows(*s.scanner, s.header, source, store, nominal);
    inputs = store.into_matrix(rows, feature_names.size());
    if (coding != nullptr) inputs = encode_inputs(inputs, *coding);
  });
  require_rows(*s.scanner, s.header, std::size_t(count_over_ranks(rows)));
  move_to_block_shards(inputs, nullptr, nullptr);
  return inputs;
}

}  // namespace radial::data
