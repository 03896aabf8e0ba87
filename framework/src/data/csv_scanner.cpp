#include "csv_scanner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include <errno.h>
#include <unistd.h>

#include "radial/errors.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

constexpr std::size_t block_bytes = std::size_t(1) << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool all_space(std::string_view text) {
  return std::all_of(text.begin(), text.end(), is_space);
}

// Bytes that never occur in a text file: C0 controls except tab and the line ends, and DEL.
bool is_binary(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f;
}

// Quoted names keep "" as a doubled quote until here.
std::string unescape(const CsvCell& cell) {
  if (!cell.quoted) return std::string(cell.text);
  std::string out;
  out.reserve(cell.text.size());
  for (std::size_t i = 0; i < cell.text.size(); ++i) {
    out += cell.text[i];
    if (cell.text[i] == '"') ++i;  // skip the second quote of ""
  }
  return out;
}

}  // namespace

CsvScanner::CsvScanner(const std::filesystem::path& file)
    : input_(InputFile::open<DataError>(file, "data file")), name_(file.string()) {
  // A small regular file gets a buffer of its size (the buffer grows if it has to).
  const std::uint64_t size = input_.regular() ? input_.size() + 1 : block_bytes;
  buffer_.resize(std::size_t(std::clamp<std::uint64_t>(size, 4096, block_bytes)));
  end_offset_ = input_.size();
}

std::string CsvScanner::where(std::size_t column) const {
  return name_ + ":" + std::to_string(line_) + ":" + std::to_string(column);
}

std::size_t CsvScanner::estimated_rows_left() const {
  // Bytes per line of the lines read since the range's start (from the file's start: with
  // the header, as before ranges existed).
  const std::size_t lines = line_ - origin_line_;
  if (!input_.regular() || lines == 0 || line_ < 2 || consumed_ >= end_offset_) return 0;
  const double per_line = double(consumed_ - origin_) / double(lines);
  return std::size_t(double(end_offset_ - consumed_) / per_line) + 1;
}

std::size_t CsvScanner::read_at(std::uint64_t offset, char* out, std::size_t count) const {
  std::size_t got = 0;
  while (got < count) {
    const ssize_t n = ::pread(input_.fd(), out + got, count - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw DataError(name_ + ": cannot read at byte " + std::to_string(offset + got) + ": " +
                      std::strerror(errno) + "; check the file and the disk");
    }
    if (n == 0) break;
    got += std::size_t(n);
  }
  return got;
}

void CsvScanner::restrict_to(std::uint64_t begin, std::uint64_t end, std::size_t first_line,
                             std::size_t blank_line) {
  if (::lseek(input_.fd(), off_t(begin), SEEK_SET) < 0) {
    throw DataError(name_ + ": cannot seek to byte " + std::to_string(begin) + ": " +
                    std::strerror(errno) + "; give a regular file");
  }
  begin_ = end_ = 0;
  next_lf_ = unknown;
  at_end_ = false;
  consumed_ = origin_ = begin;
  end_offset_ = std::max(begin, end);
  unread_ = end_offset_ - begin;
  line_ = origin_line_ = first_line - 1;
  blank_line_ = blank_line;
}

void CsvScanner::refuse_binary(std::size_t from) const {
  // A branch-free pass (it vectorises) finds whether there is a bad byte; the search for where
  // runs only then.
  const auto* bytes = reinterpret_cast<const unsigned char*>(buffer_.data());
  unsigned any = 0;
  for (std::size_t i = from; i < end_; ++i) {
    const unsigned u = bytes[i];
    any |= unsigned(u < 0x20) & unsigned(u != '\t') & unsigned(u != '\n') & unsigned(u != '\r');
    any |= unsigned(u == 0x7f);
  }
  if (any == 0) return;
  const auto bad = std::find_if(buffer_.begin() + std::ptrdiff_t(from),
                                buffer_.begin() + std::ptrdiff_t(end_), is_binary);
  // Line and column of the byte: count the line ends after the current line.
  const std::size_t at = std::size_t(bad - buffer_.begin());
  std::size_t line = line_ + 1, line_start = begin_;
  for (std::size_t i = begin_; i < at; ++i) {
    if (buffer_[i] == '\n' || (buffer_[i] == '\r' && (i + 1 >= end_ || buffer_[i + 1] != '\n'))) {
      ++line;
      line_start = i + 1;
    }
  }
  const std::size_t shown_end = std::min(end_, line_start + 40);
  std::string context(buffer_.data() + line_start, shown_end - line_start);
  context = escaped(context.substr(0, context.find_first_of("\r\n")));
  throw DataError(name_ + ":" + std::to_string(line) + ":" + std::to_string(at - line_start + 1) +
                  ": control byte " + escaped(std::string_view(&*bad, 1)) + " in \"" + context +
                  "\"; this is a binary file, not CSV text: give a CSV file (or a .npy file "
                  "with the .npy extension)");
}

bool CsvScanner::fill() {
  if (at_end_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  next_lf_ = unknown;  // bytes move and arrive
  if (end_ == buffer_.size()) {
    // One line fills the buffer: grow it, up to the longest line read.
    if (buffer_.size() > max_line_bytes) {
      throw DataError(name_ + ":" + std::to_string(line_ + 1) + ":1: the line is longer than " +
                      byte_count_text(max_line_bytes) +
                      ", the most Radial reads as one row; is this a CSV file with line ends?");
    }
    buffer_.resize(std::min(buffer_.size() * 2, max_line_bytes + 2));
  }
  const std::size_t from = end_;
  const std::size_t room = std::size_t(std::min<std::uint64_t>(buffer_.size() - end_, unread_));
  const std::size_t got = room == 0 ? 0 : input_.read_some<DataError>(buffer_.data() + end_, room);
  unread_ -= std::min<std::uint64_t>(unread_, got);
  if (got == 0) {
    at_end_ = true;
    return false;
  }
  end_ += got;
  refuse_binary(from);
  return true;
}

bool CsvScanner::next_line(std::string_view& text) {
  std::size_t scanned = begin_;  // bytes before this hold no line end
  while (true) {
    const char* data = buffer_.data();
    // The next LF (kept between calls, so CR-only text is not searched again for each line),
    // then a CR before it.
    if (next_lf_ == unknown || next_lf_ < scanned) {
      const void* lf = std::memchr(data + scanned, '\n', end_ - scanned);
      next_lf_ = lf != nullptr ? std::size_t(static_cast<const char*>(lf) - data) : end_;
    }
    const void* cr = std::memchr(data + scanned, '\r', next_lf_ - scanned);
    const std::size_t i = cr != nullptr ? std::size_t(static_cast<const char*>(cr) - data) : next_lf_;
    // A CR as the last byte read may be the first half of a CRLF: read on to know.
    const bool complete = i < end_ && (data[i] == '\n' || i + 1 < end_ || at_end_);
    if (complete || (at_end_ && end_ > begin_)) {
      const std::size_t length = i - begin_;
      std::size_t skip = 0;
      if (i < end_) skip = data[i] == '\r' && i + 1 < end_ && data[i + 1] == '\n' ? 2 : 1;
      text = std::string_view(data + begin_, length);
      begin_ = i + skip;
      consumed_ += length + skip;
      ++line_;
      return true;
    }
    if (at_end_) return false;
    scanned = i - begin_;  // fill() moves the unconsumed bytes to the front
    fill();
    scanned += begin_;
  }
}

void CsvScanner::split(std::string_view text, std::vector<CsvCell>& cells) const {
  cells.clear();
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (true) {
    while (i < n && is_space(text[i])) ++i;
    CsvCell cell;
    cell.column = i + 1;
    if (i < n && text[i] == '"') {
      cell.quoted = true;
      const std::size_t open = i++;
      const std::size_t start = i;
      while (true) {
        if (i >= n) {
          throw DataError(where(open + 1) +
                          ": this quote is not closed on its line (quoted cells cannot span "
                          "lines); add the closing quote");
        }
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      cell.text = text.substr(start, i - start);
      ++i;  // the closing quote
      while (i < n && is_space(text[i])) ++i;
      if (i < n && text[i] != ',') {
        throw DataError(where(i + 1) + ": unexpected '" + escaped(text.substr(i, 1)) +
                        "' after a closing quote; put the whole cell inside the quotes");
      }
    } else {
      const std::size_t start = i;
      const void* comma = i < n ? std::memchr(text.data() + i, ',', n - i) : nullptr;
      i = comma != nullptr ? static_cast<std::size_t>(static_cast<const char*>(comma) - text.data())
                           : n;
      std::size_t end = i;
      while (end > start && is_space(text[end - 1])) --end;
      cell.text = text.substr(start, end - start);
    }
    cells.push_back(cell);
    if (i >= n) break;
    ++i;  // the comma
  }
}

std::vector<std::string> CsvScanner::header() {
  // Spreadsheet exports often begin with a UTF-8 byte-order mark.
  while (end_ - begin_ < 3 && fill()) {
  }
  if (end_ - begin_ >= 3 && std::memcmp(buffer_.data() + begin_, "\xEF\xBB\xBF", 3) == 0) {
    begin_ += 3;
    consumed_ += 3;
  }
  std::string_view text;
  const bool has_line = next_line(text);
  if (!has_line || all_space(text)) {
    // Blank up to the end: an empty file; blank and then more: a missing header.
    std::string_view rest;
    bool only_blank = true;
    while (only_blank && next_line(rest)) only_blank = all_space(rest);
    line_ = 1;
    if (only_blank) {
      throw DataError(where(1) +
                      ": the file is empty; a data file needs a header row of column names and "
                      "at least one data row");
    }
    throw DataError(where(1) +
                    ": the first line is blank; the first line must be the header row of "
                    "column names");
  }
  std::vector<CsvCell> cells;
  split(text, cells);
  std::vector<std::string> names;
  names.reserve(cells.size());
  std::map<std::string, std::size_t> seen;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    std::string name = unescape(cells[c]);
    if (name.empty()) {
      throw DataError(where(cells[c].column) + ": column " + std::to_string(c + 1) +
                      " has no name; give every column a name in the header row");
    }
    const auto [it, fresh] = seen.emplace(name, c + 1);
    if (!fresh) {
      throw DataError(where(cells[c].column) + ": duplicate column name '" + escaped(name) +
                      "' (columns " + std::to_string(it->second) + " and " +
                      std::to_string(c + 1) + "); rename one of them");
    }
    names.push_back(std::move(name));
  }
  columns_ = names.size();
  return names;
}

bool CsvScanner::next_row(std::vector<CsvCell>& cells) {
  std::string_view text;
  while (true) {
    if (!next_line(text)) return false;  // blank lines at the end are fine
    if (!all_space(text)) break;
    if (blank_line_ == 0) blank_line_ = line_;
  }
  if (blank_line_ != 0) {
    line_ = blank_line_;
    throw DataError(where(1) +
                    ": blank line inside the data (more rows follow); remove the blank line");
  }
  split(text, cells);
  if (cells.size() != columns_) {
    // Point at the first extra cell, or at the end of a short row.
    const std::size_t column =
        cells.size() > columns_ ? cells[columns_].column : text.size() + 1;
    throw DataError(where(column) + ": found " + std::to_string(cells.size()) +
                    " cells, expected " + std::to_string(columns_) +
                    " (one per column of the header on line 1); add or remove the missing or "
                    "extra comma");
  }
  return true;
}

double parse_number(const CsvScanner& scanner, const CsvCell& cell,
                    const std::string& column_name) {
  std::string_view text = cell.text;
  // Built for messages only: parse_number runs once per cell.
  const auto column = [&] { return "column '" + escaped(column_name) + "'"; };
  if (text.empty()) {
    throw DataError(scanner.where(cell.column) + ": empty cell in " + column() +
                    "; missing values are not supported: fill in a number or remove the row");
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+' && text.size() > 1 && first[1] != '-') ++first;  // from_chars rejects '+'
  double value = 0.0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (end != last || error == std::errc::invalid_argument) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " + column() +
                    " is not a number; write a decimal number such as 1.5 or -2e-3 (missing "
                    "values and text categories are not supported: impute, encode or remove "
                    "them)");
  }
  if (error == std::errc::result_out_of_range) {
    // Underflow to a subnormal or zero is harmless; overflow is not.
    value = std::strtod(std::string(first, last).c_str(), nullptr);
    if (!std::isfinite(value)) {
      throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " +
                      column() + " is too large for a double; rescale the column");
    }
  }
  if (!std::isfinite(value)) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " + column() +
                    " is " + (std::isnan(value) ? "NaN" : "infinite") +
                    "; NaN and Inf are not allowed: impute the value or remove the row");
  }
  return value;
}

}  // namespace radial::data
