#pragma once
// A streaming CSV tokenizer, private to the data readers.
//
// The file is read through InputFile in blocks of 1 MB (a partial line is carried to the next
// block), so memory holds one block, not the file, and pipes, FIFOs and /proc files read like
// regular files. One header row, comma-separated cells, optional double quotes ("" inside quotes
// is a quote), LF, CRLF or CR-only line ends, a UTF-8 byte-order mark, spaces around cells, and
// blank lines at the end of the file are accepted. A blank line followed by more data is an error
// (it is usually a concatenation mistake). Control bytes other than tab (NUL, ...) are refused
// with their line and column: the file is binary, not CSV. Cells are views into the current
// line: valid until the next call to next_row.
//
// For a shard (radial/distributed/collectives.hpp), a regular file can be restricted to the lines
// that start in a byte range: each rank reads the header, then only its range (csv_shard.hpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "radial/io/input_file.hpp"
#include "text_escape.hpp"

namespace radial::data {

struct CsvCell {
  std::string_view text;   // without surrounding whitespace and quotes ("" not unescaped)
  // Unquoted: the cell with its surrounding spaces and tabs, which the CSV standard (RFC 4180)
  // keeps as part of a text cell (a category or label); numbers and markers read `text`.
  std::string_view spaced;
  std::size_t column = 0;  // 1-based character column of the cell's first character
  bool quoted = false;
};

class CsvScanner {
 public:
  // The longest line read: a longer one is refused, so a file without line ends cannot make
  // the reader hold all of it.
  static constexpr std::size_t max_line_bytes = std::size_t(32) << 20;

  // Opens the file (DataError naming a missing, unreadable or special file as a data file).
  explicit CsvScanner(const std::filesystem::path& file);

  // The header cells, unquoted. DataError for an empty file, duplicate or empty names.
  std::vector<std::string> header();

  // For the other line-oriented formats (ARFF, LIBSVM), which read lines themselves: the name
  // of the format in messages ("CSV" by default), a UTF-8 byte-order mark skipped at the start,
  // and the next physical line, blank or not (line() counts it; false at the end of the data).
  void set_format(std::string format) { format_ = std::move(format); }
  void skip_byte_order_mark();
  bool next_raw_line(std::string_view& text) { return next_line(text); }

  // The next data row's cells; false at the end of the data. DataError for a row whose cell
  // count differs from the header's, for a blank line inside the data and for bad quoting.
  bool next_row(std::vector<CsvCell>& cells);
  // next_row in two steps, for a reader with a fast path: the next data line (blank lines
  // handled as next_row does), and its cells (the same errors as next_row).
  bool next_data_line(std::string_view& text);
  void cells_of(std::string_view text, std::vector<CsvCell>& cells) const;

  // Line number of the row last returned (1 is the header).
  std::size_t line() const { return line_; }
  const std::string& name() const { return name_; }
  std::size_t columns() const { return columns_; }
  // "file:line:column" of a cell in the current row.
  std::string where(std::size_t column) const;

  // Data rows still to come, estimated from the file size (the range's end) and the bytes per
  // line so far; 0 when unknown (a stream).
  std::size_t estimated_rows_left() const;

  // The rows still to come in a regular file (or its range), counted as the line ends that
  // end a non-empty line plus an unterminated last line, in windows of the file mapped one at a
  // time (no copy); 0 for a stream. CR-only or blank lines make it inexact, never unsafe.
  std::size_t count_rows_left() const;

  // A regular file (its size known, readable at any offset), and its size.
  bool regular() const { return input_.regular(); }
  std::uint64_t size() const { return input_.size(); }
  // File offset after the lines returned so far (after header(): where the data begin).
  std::uint64_t offset() const { return consumed_; }
  // Up to `count` bytes at file `offset` (fewer only at the end of the file), without moving
  // the scanner. Regular files only.
  std::size_t read_at(std::uint64_t offset, char* out, std::size_t count) const;
  // Restricts the scanner to the file bytes [begin, end) (begin a line start after the header):
  // the next row is the line starting at `begin`, numbered `first_line`, and the data end at
  // `end`. `blank_line` is the first line of a run of blank lines just before `begin` (0: none),
  // so that a row after it is refused as on the whole file. Regular files only.
  void restrict_to(std::uint64_t begin, std::uint64_t end, std::size_t first_line,
                   std::size_t blank_line);

 private:
  // Splits `text` (one line, no line end) into cells.
  void split(std::string_view text, std::vector<CsvCell>& cells) const;
  // The next physical line without its line end; false at the end of the file.
  bool next_line(std::string_view& text);
  // Reads more bytes after end_ (moving the unconsumed ones to the front); false at the end.
  bool fill();
  // DataError for a control byte among buffer_[from, end_).
  void refuse_binary(std::size_t from) const;

  InputFile input_;
  std::string name_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // the unconsumed bytes are buffer_[begin_, end_)
  static constexpr std::size_t unknown = std::size_t(-1);
  std::size_t next_lf_ = unknown;    // the first LF at or after begin_, end_ if none read yet
  bool at_end_ = false;
  std::uint64_t consumed_ = 0;       // bytes of the lines returned so far
  std::uint64_t unread_ = std::uint64_t(-1);  // bytes fill() may still read (restrict_to)
  std::uint64_t end_offset_ = 0;     // where the data end: the file size or the range's end
  std::uint64_t origin_ = 0;         // offset where line counting for estimates starts
  std::size_t origin_line_ = 0;      // line_ at origin_
  std::size_t line_ = 0;
  std::size_t blank_line_ = 0;       // the first of a run of blank lines, 0 if none
  std::size_t columns_ = 0;
  std::string format_ = "CSV";
};

// The common decimal number at p ([+-]digits[.digits][e[+-]digits], at most 19 significant
// digits, value below 2^53 x 10^22) by Clinger's fast path: one multiplication or division of two
// exact doubles, correctly rounded, so the same bits as from_chars. Returns the end of the
// number, or nullptr for anything else (which parse_number reads). Never a NaN or infinity.
// The bytes up to `readable` (>= last) may be loaded, eight at a time, though not parsed.
const char* parse_decimal_prefix(const char* p, const char* last, double& value,
                                 const char* readable);

// The offsets of the commas in `text`, when there are exactly `expected` (false otherwise, or
// when a quote makes commas ambiguous). Eight bytes at a time.
bool find_commas(std::string_view text, std::vector<std::uint32_t>& commas, std::size_t expected);

// Parses a numeric cell; DataError naming the cell, its column name and what to change when it
// is empty, not a number, NaN or infinite.
double parse_number(const CsvScanner& scanner, const CsvCell& cell,
                    const std::string& column_name);

}  // namespace radial::data
