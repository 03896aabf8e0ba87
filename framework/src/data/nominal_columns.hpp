#pragma once
// Input columns read as categories while the rows stream in (CSV, ARFF), private to the data
// readers. Training: a column named in data.nominal (or an ARFF nominal attribute) holds
// categories; so does a CSV column whose first cell is text. A text cell further down a column
// of numbers is an error at the cell (a typo should not turn a column into thousands of
// categories). A test set or prediction file is read with the training coding: its nominal
// columns and categories.
// Cells of a nominal column are stored as category ids while reading; finish() makes them
// category indices (increasing byte order) and returns the coding.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "csv_scanner.hpp"
#include "radial/data/data_reader.hpp"
#include "radial/core/input_coding.hpp"
#include "row_store.hpp"
#include "target_coding.hpp"

namespace radial::data {

class NominalColumns {
 public:
  // `names`: the raw input columns. `forced`: columns holding categories from the first row.
  // `coding`: the training coding (test sets, prediction), or nullptr when learning one.
  // `first_line`: the file line of the first data row, where a text cell makes its column
  // nominal (CSV: 2; 0: never, as for ARFF, whose attributes say).
  // `allow_missing`: a missing marker (radial/data/missing_values.hpp), unquoted, is NaN.
  // `names` in another order than the coding's raw columns (the same names) is read with the
  // coding put in the file's order, so its coded columns are named as the model's are.
  NominalColumns(std::vector<std::string> names, const std::vector<bool>& forced,
                 const InputCoding* coding, std::size_t first_line, bool allow_missing = false);
  bool allows_missing() const { return allow_missing_; }

  // A column holds categories (the readers' all-numbers fast path is then off).
  bool any() const { return any_; }

  // The value stored for input column j's cell (`text` unescaped, `cell` for its position) in
  // row `row`: a number, or a category id (learning) or index (-1: unseen, read as zeros).
  // DataError at the cell for a number that is not one, a category the training coding lacks
  // (unless data.unseen = "zeros"), and more than max_classes categories in a column.
  double value(const CsvScanner& scanner, std::size_t j, const CsvCell& cell,
               const std::string& text, std::size_t row);

  // The coding (empty when no column is nominal), with the ids in `raw` (rows x columns) made
  // category indices. `source` names the file in messages.
  InputCoding finish(Matrix& raw, const std::string& source);

  // finish() for this rank's shard of a sharded read (collective; with one rank, finish()).
  // Every rank must have the same nominal columns (the readers force them: data.nominal, ARFF
  // nominal attributes, and the CSV columns whose first data cell is text, found by every rank
  // from the file's first data row). Each column's categories are the union of every rank's,
  // in increasing byte order: the coding one process learns from all rows, the same on every
  // rank. The limit of max_classes categories applies to the union.
  InputCoding finish_over_ranks(Matrix& raw, const std::string& source);

 private:
  std::vector<std::string> names_;
  std::vector<TextLabels> learned_;  // learning: per column, active when nominal
  const InputCoding* coding_ = nullptr;
  std::shared_ptr<const InputCoding> in_file_order_;  // the coding reordered (stays put on moves)
  std::vector<const NominalInput*> known_;  // test: per column, its training categories
  std::size_t first_line_ = 0;
  bool any_ = false, allow_missing_ = false;
};

// Whether `names` are the raw columns of `coding`, in its order or another.
bool same_columns(const InputCoding& coding, const std::vector<std::string>& names);

// A cell that from_chars reads whole (numbers, and the NaN and infinities parse_number refuses).
bool reads_as_number(std::string_view text);

// The raw inputs (`rows` rows in `inputs`) coded 1-of-C into `data` (inputs, feature names,
// coding), for the CSV and ARFF readers alike. Sharded (`over_ranks`, collective): the categories
// are the union over ranks (finish_over_ranks).
void code_inputs(Dataset& data, NominalColumns& nominal, RowStore& inputs, std::size_t rows,
                 const DataOptions& options, const std::string& source, bool over_ranks = false);

}  // namespace radial::data
