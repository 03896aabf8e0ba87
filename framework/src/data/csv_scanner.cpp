#include "csv_scanner.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "radial/errors.hpp"

namespace radial::data {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

bool all_space(std::string_view text) {
  for (char c : text) {
    if (!is_space(c) && c != '\n') return false;
  }
  return true;
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

std::string shorten(std::string_view text) {
  constexpr std::size_t limit = 40;
  if (text.size() <= limit) return std::string(text);
  return std::string(text.substr(0, limit)) + "...";
}

}  // namespace

CsvScanner::CsvScanner(const std::filesystem::path& file) : name_(file.string()) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw DataError(name_ + ": cannot open the data file (" +
                    (std::filesystem::exists(file) ? "permission denied" : "no such file") +
                    "); check the path");
  }
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(in.tellg());
  in.seekg(0, std::ios::beg);
  buffer_.resize(size);
  in.read(buffer_.data(), static_cast<std::streamsize>(size));
  if (!in) throw DataError(name_ + ": could not read the whole file");
  // Spreadsheet exports often begin with a UTF-8 byte-order mark.
  if (buffer_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
}

std::string CsvScanner::where(std::size_t column) const {
  return name_ + ":" + std::to_string(line_) + ":" + std::to_string(column);
}

bool CsvScanner::next_line(std::string_view& text) {
  if (pos_ >= buffer_.size()) return false;
  const char* begin = buffer_.data() + pos_;
  const std::size_t left = buffer_.size() - pos_;
  const void* newline = std::memchr(begin, '\n', left);
  const std::size_t length =
      newline != nullptr ? static_cast<std::size_t>(static_cast<const char*>(newline) - begin)
                         : left;
  pos_ += length + (newline != nullptr ? 1 : 0);
  ++line_;
  text = std::string_view(begin, length);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return true;
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
        throw DataError(where(i + 1) + ": unexpected '" + std::string(1, text[i]) +
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
  std::string_view text;
  const bool has_line = next_line(text);
  if (!has_line || (all_space(text) && all_space(std::string_view(buffer_).substr(pos_)))) {
    line_ = 1;
    throw DataError(where(1) +
                    ": the file is empty; a data file needs a header row of column names and "
                    "at least one data row");
  }
  if (all_space(text)) {
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
      throw DataError(where(cells[c].column) + ": duplicate column name '" + name +
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
  if (!next_line(text)) return false;
  if (all_space(text)) {
    if (all_space(std::string_view(buffer_).substr(pos_))) {
      pos_ = buffer_.size();
      return false;
    }
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
  if (text.empty()) {
    throw DataError(scanner.where(cell.column) + ": empty cell in column '" + column_name +
                    "'; missing values are not supported: fill in a number or remove the row");
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+' && text.size() > 1 && first[1] != '-') ++first;  // from_chars rejects '+'
  double value = 0.0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (end != last || error == std::errc::invalid_argument) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + shorten(text) + "\" in column '" +
                    column_name +
                    "' is not a number; write a decimal number such as 1.5 or -2e-3 (missing "
                    "values and text categories are not supported: impute, encode or remove "
                    "them)");
  }
  if (error == std::errc::result_out_of_range) {
    // Underflow to a subnormal or zero is harmless; overflow is not.
    value = std::strtod(std::string(first, last).c_str(), nullptr);
    if (!std::isfinite(value)) {
      throw DataError(scanner.where(cell.column) + ": cell \"" + shorten(text) +
                      "\" in column '" + column_name +
                      "' is too large for a double; rescale the column");
    }
  }
  if (!std::isfinite(value)) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + shorten(text) + "\" in column '" +
                    column_name + "' is " + (std::isnan(value) ? "NaN" : "infinite") +
                    "; NaN and Inf are not allowed: impute the value or remove the row");
  }
  return value;
}

}  // namespace radial::data
