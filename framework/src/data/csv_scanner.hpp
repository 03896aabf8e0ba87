#pragma once
// A CSV tokenizer over an in-memory copy of the file, private to the data readers.
//
// One header row, comma-separated cells, optional double quotes ("" inside quotes is a quote),
// LF or CRLF line ends, a UTF-8 byte-order mark, spaces around cells, and blank lines at the end
// of the file are accepted. A blank line followed by more data is an error (it is usually a
// concatenation mistake). Cells are views into the buffer: no allocation per cell.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace radial::data {

struct CsvCell {
  std::string_view text;   // without surrounding whitespace and quotes ("" not unescaped)
  std::size_t column = 0;  // 1-based character column of the cell's first character
  bool quoted = false;
};

class CsvScanner {
 public:
  // Reads the whole file; DataError if it cannot be opened.
  explicit CsvScanner(const std::filesystem::path& file);

  // The header cells, unquoted. DataError for an empty file, duplicate or empty names.
  std::vector<std::string> header();

  // The next data row's cells; false at the end of the data. DataError for a row whose cell
  // count differs from the header's, for a blank line inside the data and for bad quoting.
  bool next_row(std::vector<CsvCell>& cells);

  // Line number of the row last returned (1 is the header).
  std::size_t line() const { return line_; }
  const std::string& name() const { return name_; }
  std::size_t columns() const { return columns_; }
  // "file:line:column" of a cell in the current row.
  std::string where(std::size_t column) const;

 private:
  // Splits `text` (one line, no line end) into cells; false if the line is blank.
  void split(std::string_view text, std::vector<CsvCell>& cells) const;
  // The next physical line without its line end; false at the end of the buffer.
  bool next_line(std::string_view& text);

  std::string name_;
  std::string buffer_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  std::size_t columns_ = 0;
};

// Parses a numeric cell; DataError naming the cell, its column name and what to change when it
// is empty, not a number, NaN or infinite.
double parse_number(const CsvScanner& scanner, const CsvCell& cell,
                    const std::string& column_name);

}  // namespace radial::data
