#include "csv_scanner.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "radial/core/errors.hpp"
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

// Exact powers of ten: every one up to 1e22 is a double.
constexpr double powers_of_ten[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Eight text bytes as a little-endian word: the first byte is the lowest.
std::uint64_t load8(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// How many of the eight bytes of `word` are digits before the first that is not. Per byte,
// (b + 0x46) or (b - 0x30) has its top bit set exactly when b is not '0'..'9'; carries and
// borrows only move upwards, so the lowest flagged byte is exact.
unsigned leading_digit_count(std::uint64_t word) {
  const std::uint64_t flags =
      ((word + 0x4646464646464646u) | (word - 0x3030303030303030u)) & 0x8080808080808080u;
  return flags == 0 ? 8u : unsigned(__builtin_ctzll(flags)) >> 3;
}

// The number written by the first `count` (1..8) bytes of `word`, all digits: aligned so they
// end at the top byte (zeros in front), then pairs, quads and the octet combined by multiplies.
std::uint64_t digits_value(std::uint64_t word, unsigned count) {
  std::uint64_t v = (word - 0x3030303030303030u) << (8 * (8 - count));
  v = v * 10 + (v >> 8);  // each 16-bit lane: 10 a + b
  const std::uint64_t lanes = 0x000000FF000000FFu;
  v = ((v & lanes) * (100 + (std::uint64_t(1000000) << 32)) +
       ((v >> 16) & lanes) * (1 + (std::uint64_t(10000) << 32))) >>
      32;
  return v;
}

constexpr std::uint64_t integer_powers_of_ten[] = {1,      10,      100,      1000,     10000,
                                                   100000, 1000000, 10000000, 100000000};

// Digits from p into mantissa (eight at a time while eight bytes are left); returns their end.
inline const char* read_digits(const char* p, const char* last, std::uint64_t& mantissa) {
  while (last - p >= 8) {
    const unsigned n = leading_digit_count(load8(p));
    if (n == 0) return p;
    mantissa = mantissa * integer_powers_of_ten[n] + digits_value(load8(p), n);
    p += n;
    if (n < 8) return p;
  }
  while (p != last && unsigned(*p - '0') < 10) mantissa = mantissa * 10 + unsigned(*p++ - '0');
  return p;
}

}  // namespace

bool find_commas(std::string_view text, std::vector<std::uint32_t>& commas, std::size_t expected) {
  commas.resize(expected + 3);  // room for the two stores of a word past the last comma
  constexpr std::uint64_t highest = std::uint64_t(1) << 63;
  constexpr std::uint64_t ones = 0x0101010101010101u, lows = 0x7f7f7f7f7f7f7f7fu;
  // Per byte, the top bit of ~((t & 0x7f) + 0x7f | t | 0x7f) is set exactly when t is 0.
  const auto zero_bytes = [&](std::uint64_t t) { return ~(((t & lows) + lows) | t | lows); };
  const char* p = text.data();
  const std::size_t size = text.size();
  std::size_t found = 0, i = 0;
  for (; i + 8 <= size; i += 8) {
    const std::uint64_t w = load8(p + i);
    if (zero_bytes(w ^ ('"' * ones))) return false;
    std::uint64_t z = zero_bytes(w ^ (',' * ones));
    // The first two commas of the word are stored whether there are any (the stores past
    // `found` are overwritten later), so the usual word costs no branch on its comma count.
    const std::uint64_t second = z & (z - 1), third = second & (second - 1);
    const std::size_t first_two = std::size_t(z != 0) + std::size_t(second != 0);
    commas[found] = std::uint32_t(i + (unsigned(__builtin_ctzll(z | highest)) >> 3));
    commas[found + 1] = std::uint32_t(i + (unsigned(__builtin_ctzll(second | highest)) >> 3));
    if (third != 0) {
      for (z = third; z != 0 && found + 2 <= expected; z &= z - 1)
        commas[found++ + 2] = std::uint32_t(i + (unsigned(__builtin_ctzll(z)) >> 3));
      if (z != 0) return false;  // more commas than expected
    }
    found += first_two;
    if (found > expected) return false;
  }
  for (; i < size; ++i) {
    if (p[i] == '"') return false;
    if (p[i] != ',') continue;
    if (found == expected + 1) return false;
    commas[found++] = std::uint32_t(i);
  }
  return found == expected;
}

const char* parse_decimal_prefix(const char* p, const char* last, double& value,
                                 const char* readable) {
  // Without a branch: signs are as often '-' as not, which a branch would mispredict.
  const bool negative = p != last && *p == '-';
  p += p != last && (*p == '-' || *p == '+');
  // The usual cell, d.ddd with at most 7 digits on either side and no exponent, from two
  // words read at once (the general loop below reads the same numbers, one step at a time).
  if (readable - p >= 16) {
    const std::uint64_t whole = load8(p);
    const unsigned n1 = leading_digit_count(whole);
    if (n1 != 0 && n1 < 8 && p[n1] == '.') {
      const std::uint64_t part = load8(p + n1 + 1);
      const unsigned n2 = leading_digit_count(part);
      const char* end = p + n1 + 1 + n2;
      if (n2 != 0 && n2 < 8 && end <= last && (end == last || (*end != 'e' && *end != 'E'))) {
        const std::uint64_t mantissa =
            digits_value(whole, n1) * integer_powers_of_ten[n2] + digits_value(part, n2);
        const double v = double(mantissa) / powers_of_ten[n2];  // below 10^14: exact
        value = negative ? -v : v;
        return end;
      }
    }
  }
  // At most 19 digits in all (leading zeros included), so the mantissa cannot wrap.
  std::uint64_t mantissa = 0;
  const char* start = p;
  p = read_digits(p, std::min(last, start + 19), mantissa);
  std::ptrdiff_t digits = p - start;
  const bool integer_part = digits != 0;
  bool fraction_part = false;
  int exponent = 0;
  if (p != last && *p == '.') {
    ++p;
    const char* fraction = p;
    p = read_digits(p, std::min(last, fraction + (19 - digits)), mantissa);
    fraction_part = p != fraction;
    digits += p - fraction;
    exponent = -int(p - fraction);
  }
  if (!integer_part && !fraction_part) return nullptr;
  if (p != last && unsigned(*p - '0') < 10) return nullptr;  // more than 19 digits
  if (p != last && (*p == 'e' || *p == 'E')) {
    ++p;
    bool negative_exponent = false;
    if (p != last && (*p == '-' || *p == '+')) negative_exponent = *p++ == '-';
    const char* e_start = p;
    int e = 0;
    while (p != last && unsigned(*p - '0') < 10 && e < 10000) e = e * 10 + (*p++ - '0');
    if (p == e_start || (p != last && unsigned(*p - '0') < 10)) return nullptr;
    exponent += negative_exponent ? -e : e;
  }
  if (mantissa > (std::uint64_t(1) << 53) || exponent < -22 || exponent > 22) return nullptr;
  const double v = exponent < 0 ? double(mantissa) / powers_of_ten[-exponent]
                                : double(mantissa) * powers_of_ten[exponent];
  value = negative ? -v : v;
  return p;
}

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
  // Bytes per line of the lines read since the range's start (a range from the file's start
  // counts the header line too).
  const std::size_t lines = line_ - origin_line_;
  if (!input_.regular() || lines == 0 || line_ < 2 || consumed_ >= end_offset_) return 0;
  const double per_line = double(consumed_ - origin_) / double(lines);
  return std::size_t(double(end_offset_ - consumed_) / per_line) + 1;
}

std::size_t CsvScanner::count_rows_left() const {
  if (!input_.regular() || consumed_ >= end_offset_) return 0;
  const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
  constexpr std::uint64_t window = std::uint64_t(32) << 20;  // mapped at a time
  std::size_t rows = 0;
  char previous = '\n';  // the byte before consumed_ ends the header's line
  for (std::uint64_t at = consumed_; at < end_offset_;) {
    const std::uint64_t base = at / page * page;
    const std::uint64_t length = std::min(end_offset_, base + window) - base;
    void* mapped = ::mmap(nullptr, length, PROT_READ, MAP_PRIVATE, input_.fd(), off_t(base));
    if (mapped == MAP_FAILED) return 0;  // an estimate only: the chunked path reads anyway
    ::madvise(mapped, length, MADV_SEQUENTIAL);
    const char* bytes = static_cast<const char*>(mapped) + (at - base);
    const std::size_t n = std::size_t(base + length - at);
    // Eight bytes at a time: flags (top bit of a byte) of line ends, minus those right after
    // one; a multiply sums the flags of a word.
    constexpr std::uint64_t ones = 0x0101010101010101u, lows = 0x7f7f7f7f7f7f7f7fu;
    const auto zero_bytes = [&](std::uint64_t t) { return ~(((t & lows) + lows) | t | lows); };
    std::uint64_t carry = previous == '\n' ? 0x80 : 0;  // the flag of the byte before
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const std::uint64_t ends = zero_bytes(load8(bytes + i) ^ ('\n' * ones));
      const std::uint64_t starts = ends & ~((ends << 8) | carry);
      rows += std::size_t((((starts >> 7) * ones) >> 56) & 0xff);
      carry = ends >> 56;
    }
    for (; i < n; ++i) {
      const bool end = bytes[i] == '\n';
      rows += end && carry == 0;
      carry = end ? 0x80 : 0;
    }
    if (n != 0) previous = bytes[n - 1];
    ::munmap(mapped, length);
    at = base + length;
  }
  return rows + (previous != '\n');
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
  // Eight bytes at a time: a word with no byte below 0x20 and none equal to 0x7f is clean
  // (the usual bit tricks; a flag may be false only above a true one, which is enough for
  // "any"). Words that hold a tab or a line end are looked at byte by byte; the search for
  // where runs only when a bad byte is found.
  const char* bytes = buffer_.data();
  constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  bool any = false;
  std::size_t i = from;
  for (; i + 8 <= end_ && !any; i += 8) {
    const std::uint64_t w = load8(bytes + i);
    const std::uint64_t del = w ^ (0x7f * ones);
    if ((((w - 0x20 * ones) & ~w) | ((del - ones) & ~del)) & highs)
      for (std::size_t k = i; k < i + 8; ++k) any |= is_binary(bytes[k]);
  }
  for (; i < end_ && !any; ++i) any = is_binary(bytes[i]);
  if (!any) return;
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
                  "\"; this is a binary file, not " + format_ + " text: give " +
                  (format_ == "ARFF" ? "an " : "a ") + format_ +
                  " file (or a .npy file with the .npy extension)");
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
    const std::size_t spaced_start = i;
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
      std::size_t spaced_end = i;  // a CR-only line end's CR is not part of the cell
      while (spaced_end > spaced_start && text[spaced_end - 1] == '\r') --spaced_end;
      cell.spaced = text.substr(spaced_start, spaced_end - spaced_start);
    }
    cells.push_back(cell);
    if (i >= n) break;
    ++i;  // the comma
  }
}

void CsvScanner::skip_byte_order_mark() {
  while (end_ - begin_ < 3 && fill()) {
  }
  if (end_ - begin_ >= 3 && std::memcmp(buffer_.data() + begin_, "\xEF\xBB\xBF", 3) == 0) {
    begin_ += 3;
    consumed_ += 3;
  }
}

std::vector<std::string> CsvScanner::header() {
  // Spreadsheet exports often begin with a UTF-8 byte-order mark.
  skip_byte_order_mark();
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
  if (!next_data_line(text)) return false;
  cells_of(text, cells);
  return true;
}

bool CsvScanner::next_data_line(std::string_view& text) {
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
  return true;
}

void CsvScanner::cells_of(std::string_view text, std::vector<CsvCell>& cells) const {
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
}

double parse_number(const CsvScanner& scanner, const CsvCell& cell,
                    const std::string& column_name) {
  std::string_view text = cell.text;
  // Built for messages only: parse_number runs once per cell.
  const auto column = [&] { return "column '" + escaped(column_name) + "'"; };
  if (text.empty()) {
    throw DataError(scanner.where(cell.column) + ": empty cell in " + column() +
                    "; fill in a number, remove the row, or read missing inputs with data.missing = "
                    "\"drop-rows\", \"mean\", \"median\" or \"em\"");
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  double value = 0.0;
  if (parse_decimal_prefix(first, last, value, last) == last) return value;
  if (*first == '+' && text.size() > 1 && first[1] != '-') ++first;  // from_chars rejects '+'

  const auto [end, error] = std::from_chars(first, last, value);
  if (end != last || error == std::errc::invalid_argument) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " + column() +
                    " is not a number; write a decimal number such as 1.5 or -2e-3");
  }
  if (error == std::errc::result_out_of_range) {
    // Underflow to a subnormal or zero is harmless; overflow is not.
    value = std::strtod(std::string(first, last).c_str(), nullptr);
    if (!std::isfinite(value)) {
      throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " +
                      column() + " is too large for a double; rescale the column");
    }
  }
  if (std::isnan(value)) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " + column() +
                    " is NaN, a missing value; fill in a number, remove the row, or read missing "
                    "inputs with data.missing = \"drop-rows\", \"mean\", \"median\" or \"em\"");
  }
  if (!std::isfinite(value)) {
    throw DataError(scanner.where(cell.column) + ": cell \"" + escaped(text) + "\" in " + column() +
                    " is infinite; Inf is not allowed: impute the value or remove the row");
  }
  return value;
}

}  // namespace radial::data
