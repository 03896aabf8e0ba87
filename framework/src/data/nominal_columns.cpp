#include "nominal_columns.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "radial/data/data_reader.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

std::string list_categories(const std::vector<std::string>& categories) {
  std::string out;
  for (std::size_t k = 0; k < categories.size() && k < 20; ++k)
    out += (k ? ", " : "") + std::string("\"") + escaped(categories[k]) + "\"";
  if (categories.size() > 20) out += ", ... (" + std::to_string(categories.size()) + " in all)";
  return out;
}

// `coding` for raw columns named `names` (its raw names in another order).
InputCoding in_order_of(const InputCoding& coding, const std::vector<std::string>& names) {
  InputCoding out;
  out.raw_names = names;
  out.unseen_as_zero = coding.unseen_as_zero;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const auto at = std::find(coding.raw_names.begin(), coding.raw_names.end(), names[j]);
    if (const NominalInput* input = coding.find(std::size_t(at - coding.raw_names.begin())))
      out.nominal.push_back({j, input->categories});
  }
  return out;
}

}  // namespace

bool same_columns(const InputCoding& coding, const std::vector<std::string>& names) {
  return coding.raw_names.size() == names.size() &&
         std::is_permutation(names.begin(), names.end(), coding.raw_names.begin());
}

bool reads_as_number(std::string_view text) {
  if (text.empty()) return true;  // parse_number names the empty cell
  const char* first = text.data();
  const char* last = first + text.size();
  if (*first == '+' && text.size() > 1 && first[1] != '-') ++first;
  double value = 0.0;
  const auto [end, error] = std::from_chars(first, last, value);
  return end == last && error != std::errc::invalid_argument;
}

NominalColumns::NominalColumns(std::vector<std::string> names, const std::vector<bool>& forced,
                               const InputCoding* coding, std::size_t first_line,
                               bool allow_missing)
    : names_(std::move(names)),
      coding_(coding),
      first_line_(coding == nullptr ? first_line : 0),
      allow_missing_(allow_missing) {
  const std::size_t d = names_.size();
  if (coding_ != nullptr && coding_->raw_names != names_ && same_columns(*coding_, names_)) {
    in_file_order_ = std::make_shared<const InputCoding>(in_order_of(*coding_, names_));
    coding_ = in_file_order_.get();
  }
  if (coding_ != nullptr) {
    known_.resize(d, nullptr);
    for (std::size_t j = 0; j < d; ++j) {
      known_[j] = coding_->find(j);
      any_ |= known_[j] != nullptr;
    }
    return;
  }
  learned_.resize(d);
  for (std::size_t j = 0; j < d && j < forced.size(); ++j) {
    if (!forced[j]) continue;
    learned_[j].start(0);
    any_ = true;
  }
}

double NominalColumns::value(const CsvScanner& scanner, std::size_t j, const CsvCell& cell,
                             const std::string& text, std::size_t row) {
  if (!cell.quoted && is_missing_marker(cell.text)) {
    if (allow_missing_) return std::numeric_limits<double>::quiet_NaN();
    // A column of categories: its empty cell is a missing category, not a missing number.
    const bool categories = coding_ != nullptr ? known_[j] != nullptr : learned_[j].active();
    if (categories) {
      throw DataError(scanner.where(cell.column) + ": " +
                      (cell.text.empty() ? std::string("empty cell")
                                         : "missing value \"" + escaped(cell.text) + "\"") +
                      " in the text column '" + escaped(names_[j]) +
                      "' (a nominal input); fill in a category, remove the row, or read missing "
                      "inputs with data.missing = \"drop-rows\", \"mean\", \"median\" or \"em\"");
    }
    // An empty cell and NaN keep the number parser's messages.
    if (cell.text.empty() || cell.text.size() == 3) return parse_number(scanner, cell, names_[j]);
    throw DataError(scanner.where(cell.column) + ": missing value \"" + escaped(cell.text) +
                    "\" in input column '" + escaped(names_[j]) +
                    "'; set data.missing = \"drop-rows\", \"mean\", \"median\" or \"em\" to "
                    "read missing values, or fill it in");
  }
  if (coding_ != nullptr) {
    const NominalInput* known = known_[j];
    if (known == nullptr) return parse_number(scanner, cell, names_[j]);
    const auto& categories = known->categories;
    const std::string name = label_text(text);  // as TextLabels knows it in training
    const auto it = std::lower_bound(categories.begin(), categories.end(), name);
    if (it != categories.end() && *it == name) return double(it - categories.begin());
    if (coding_->unseen_as_zero) return -1.0;
    throw DataError(scanner.where(cell.column) + ": category \"" + escaped(text) +
                    "\" of input column '" + escaped(names_[j]) +
                    "' does not occur in the training data (its categories are " +
                    list_categories(categories) +
                    "); set data.unseen = \"zeros\" when training to read unseen categories as "
                    "all-zero indicators, or remove the row");
  }
  TextLabels& labels = learned_[j];
  if (!labels.active()) {
    if (first_line_ == 0 || reads_as_number(cell.text))
      return parse_number(scanner, cell, names_[j]);
    if (scanner.line() != first_line_) {
      throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(cell.text) +
                      "\" in column '" + escaped(names_[j]) +
                      "' is not a number; a column holds categories when its first cell is text "
                      "or data.nominal names it: correct the cell, or add the column to "
                      "data.nominal");
    }
    labels.start(row);
    any_ = true;
  }
  const double id = labels.id(text);
  if (labels.too_many()) {
    throw DataError(scanner.where(cell.column) + ": input column '" + escaped(names_[j]) +
                    "' has more than " + std::to_string(max_classes) +
                    " categories; Radial codes a nominal input 1-of-C, so give it as numbers "
                    "or merge categories");
  }
  return id;
}

InputCoding NominalColumns::finish(Matrix& raw, const std::string& source) {
  if (coding_ != nullptr) return *coding_;
  InputCoding coding;
  coding.raw_names = names_;
  const std::size_t n = raw.shape(0);
  for (std::size_t j = 0; j < learned_.size(); ++j) {
    TextLabels& labels = learned_[j];
    if (!labels.active()) continue;
    for (std::size_t i = 0; i < std::min(labels.start_row(), n); ++i)
      if (!std::isnan(raw(i, j))) raw(i, j) = labels.id(format_value(raw(i, j)));
    if (labels.too_many()) {
      throw DataError(source + ": input column '" + escaped(names_[j]) + "' has more than " +
                      std::to_string(max_classes) +
                      " categories; give it as numbers or merge "
                      "categories");
    }
    std::vector<std::string> sorted = labels.names();
    std::sort(sorted.begin(), sorted.end());
    std::vector<double> index(labels.names().size());
    for (std::size_t id = 0; id < index.size(); ++id)
      index[id] = double(std::lower_bound(sorted.begin(), sorted.end(), labels.names()[id]) -
                         sorted.begin());
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(raw(i, j))) raw(i, j) = index[std::size_t(raw(i, j))];
    coding.nominal.push_back({j, std::move(sorted)});
  }
  return coding;
}

InputCoding NominalColumns::finish_over_ranks(Matrix& raw, const std::string& source) {
  if (collectives().size() == 1 || coding_ != nullptr) return finish(raw, source);
  const std::size_t n = raw.shape(0), d = learned_.size();
  // The nominal columns of every rank (the same when the readers force them, as they do).
  std::vector<double> active(d, 0.0);
  for (std::size_t j = 0; j < d; ++j) active[j] = learned_[j].active() ? 1.0 : 0.0;
  collectives().max(active.data(), d);
  InputCoding coding;
  coding.raw_names = names_;
  for (std::size_t j = 0; j < d; ++j) {
    if (active[j] == 0.0) continue;
    TextLabels& labels = learned_[j];
    // A rank that read only numbers in the column holds them as the texts they were written as.
    if (!labels.active()) labels.start(n);
    for (std::size_t i = 0; i < std::min(labels.start_row(), n); ++i)
      if (!std::isnan(raw(i, j))) raw(i, j) = labels.id(format_value(raw(i, j)));
    // Judged on every rank together, so that every rank throws or none does.
    const bool too_many = max_over_ranks(labels.too_many() ? 1.0 : 0.0) != 0.0;
    std::vector<std::string> categories;
    if (!too_many) categories = union_over_ranks(labels.names());
    if (too_many || categories.size() > max_classes) {
      throw DataError(source + ": input column '" + escaped(names_[j]) + "' has more than " +
                      std::to_string(max_classes) +
                      " categories; give it as numbers or merge "
                      "categories");
    }
    std::vector<double> index(labels.names().size());
    for (std::size_t id = 0; id < index.size(); ++id)
      index[id] = double(std::lower_bound(categories.begin(), categories.end(),
                                          labels.names()[id]) -
                         categories.begin());
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isnan(raw(i, j))) raw(i, j) = index[std::size_t(raw(i, j))];
    coding.nominal.push_back({j, std::move(categories)});
  }
  return coding;
}

void code_inputs(Dataset& data, NominalColumns& nominal, RowStore& inputs, std::size_t rows,
                 const DataOptions& options, const std::string& source, bool over_ranks) {
  Matrix raw = inputs.into_matrix(rows, data.feature_names.size());
  InputCoding coding =
      over_ranks ? nominal.finish_over_ranks(raw, source) : nominal.finish(raw, source);
  if (coding.empty()) {
    data.inputs = std::move(raw);
    return;
  }
  coding.unseen_as_zero = options.coding ? options.coding->unseen_as_zero : options.unseen_as_zero;
  data.inputs = encode_inputs(raw, coding);
  data.feature_names = coding.coded_names();
  data.coding = std::move(coding);
}

}  // namespace radial::data
