#include "arff_format.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "radial/core/errors.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() && is_space(text[i])) ++i;
  return i;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// A line that holds nothing but spaces or a comment.
bool is_blank_or_comment(std::string_view text) {
  const std::size_t i = skip_space(text, 0);
  return i == text.size() || text[i] == '%';
}

[[noreturn]] void fail(const CsvScanner& scanner, std::size_t index, const std::string& what) {
  throw DataError(scanner.where(index + 1) + ": " + what);
}

// Whether `value` was written in quotes (then it may be empty, and `?` is text).
bool was_quoted(std::string_view text, const ArffValue& value) {
  return value.column >= 1 && value.column <= text.size() &&
         (text[value.column - 1] == '\'' || text[value.column - 1] == '"');
}

// Reads one value starting at text[i] (after spaces): quoted with ' or ", or bare up to a
// character of `stops`, a `%` comment or the end of the line (trailing spaces dropped). Returns
// the index after the value and the spaces after it.
std::size_t read_value(const CsvScanner& scanner, std::string_view text, std::size_t i,
                       std::string_view stops, ArffValue& out) {
  i = skip_space(text, i);
  out.column = i + 1;
  out.text.clear();
  out.missing = false;
  if (i < text.size() && (text[i] == '\'' || text[i] == '"')) {
    const char quote = text[i];
    const std::size_t open = i++;
    while (true) {
      if (i >= text.size())
        fail(scanner, open,
             std::string("this ") + quote + " quote is not closed on its line; add the closing " +
                 quote);
      const char c = text[i];
      if (c == quote) break;
      if (c == '\\' && i + 1 < text.size()) {
        const char e = text[++i];
        out.text += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else {
        out.text += c;
      }
      ++i;
    }
    // A space right after the quote ends a value that spaces end (an attribute's name).
    if (i + 1 < text.size() && stops.find(text[i + 1]) != std::string_view::npos) return i + 1;
    i = skip_space(text, i + 1);
    if (i < text.size() && stops.find(text[i]) == std::string_view::npos && text[i] != '%')
      fail(scanner, i,
           "unexpected '" + escaped(text.substr(i, 1)) +
               "' after a closing quote; put the whole value inside the quotes");
    return i;
  }
  const std::size_t start = i;
  while (i < text.size() && stops.find(text[i]) == std::string_view::npos && text[i] != '%') ++i;
  std::size_t end = i;
  while (end > start && is_space(text[end - 1])) --end;
  out.text.assign(text.substr(start, end - start));
  out.missing = out.text == "?";
  return i;
}

// The attribute's name: quoted, or a bare word up to a space or '{'.
std::size_t read_name(const CsvScanner& scanner, std::string_view text, std::size_t i,
                      std::string& name) {
  ArffValue value;
  const std::size_t start = skip_space(text, i);
  if (start < text.size() && (text[start] == '\'' || text[start] == '"')) {
    i = read_value(scanner, text, start, " \t{", value);
  } else {
    i = start;
    while (i < text.size() && !is_space(text[i]) && text[i] != '{' && text[i] != '%') ++i;
    value.text.assign(text.substr(start, i - start));
  }
  if (value.text.empty())
    fail(scanner, start, "@attribute without a name; write @attribute NAME TYPE");
  name = std::move(value.text);
  return skip_space(text, i);
}

// The declared values of a nominal type `{a, b, 'c d'}` starting at text[i] == '{'.
void read_nominal(const CsvScanner& scanner, std::string_view text, std::size_t i,
                  ArffAttribute& attribute) {
  const std::size_t open = i++;
  std::map<std::string, std::size_t> seen;
  while (true) {
    ArffValue value;
    i = read_value(scanner, text, i, ",}", value);
    if (i >= text.size() || text[i] == '%')
      fail(scanner, open,
           "the list of nominal values of '" + escaped(attribute.name) +
               "' is not closed on its line; end it with '}'");
    if (value.text.empty() && !was_quoted(text, value)) {
      if (text[i] == '}' && attribute.values.empty())
        fail(scanner, open,
             "attribute '" + escaped(attribute.name) +
                 "' has no nominal values; list them as {a, b, c}");
      fail(scanner, value.column - 1,
           "empty nominal value in the list of '" + escaped(attribute.name) +
               "'; remove the extra comma");
    }
    if (!seen.emplace(value.text, attribute.values.size()).second)
      fail(scanner, value.column - 1,
           "nominal value '" + escaped(value.text) + "' is listed twice for '" +
               escaped(attribute.name) + "'; list each value once");
    attribute.values.push_back(std::move(value.text));
    if (text[i] == '}') break;
    ++i;  // the comma
  }
  i = skip_space(text, i + 1);
  if (i < text.size() && text[i] != '%')
    fail(scanner, i,
         "unexpected text after the nominal values of '" + escaped(attribute.name) + "'");
}

ArffAttribute read_attribute(const CsvScanner& scanner, std::string_view text, std::size_t i) {
  ArffAttribute attribute;
  attribute.line = scanner.line();
  i = read_name(scanner, text, i, attribute.name);
  if (i >= text.size() || text[i] == '%')
    fail(scanner, i,
         "attribute '" + escaped(attribute.name) +
             "' has no type; give numeric, real, integer, string or {values}");
  if (text[i] == '{') {
    attribute.kind = ArffAttribute::Kind::Nominal;
    read_nominal(scanner, text, i, attribute);
    return attribute;
  }
  std::size_t end = i;
  while (end < text.size() && !is_space(text[end]) && text[end] != '%') ++end;
  const std::string type = lower(text.substr(i, end - i));
  if (type == "numeric" || type == "real" || type == "integer") {
    attribute.kind = ArffAttribute::Kind::Numeric;
  } else if (type == "string") {
    attribute.kind = ArffAttribute::Kind::String;
  } else if (type == "date" || type == "relational") {
    fail(scanner, i,
         "attribute '" + escaped(attribute.name) + "' is of type " + type +
             ", which Radial does not read; convert it to numeric (a date as a "
             "number of days, say) or leave it out");
  } else {
    fail(scanner, i,
         "unknown attribute type '" + escaped(text.substr(i, end - i)) + "' for '" +
             escaped(attribute.name) + "'; give numeric, real, integer, string or {values}");
  }
  end = skip_space(text, end);
  if (end < text.size() && text[end] != '%')
    fail(scanner, end, "unexpected text after the type of '" + escaped(attribute.name) + "'");
  return attribute;
}

// Fills `row` from a sparse line `{i v, j w}` starting at text[i] == '{'.
void read_sparse(const CsvScanner& scanner, const ArffHeader& header, std::string_view text,
                 std::size_t i, std::vector<ArffValue>& row) {
  const std::size_t n = header.attributes.size();
  for (std::size_t a = 0; a < n; ++a) {
    const ArffAttribute& attribute = header.attributes[a];
    row[a].column = 0;
    row[a].missing = false;
    row[a].text = attribute.kind == ArffAttribute::Kind::Nominal   ? attribute.values.front()
                  : attribute.kind == ArffAttribute::Kind::Numeric ? "0"
                                                                   : "";
  }
  ++i;
  std::size_t next = 0;  // the smallest index allowed next
  i = skip_space(text, i);
  if (i < text.size() && text[i] == '}') {
    ++i;
  } else {
    while (true) {
      i = skip_space(text, i);
      const std::size_t start = i;
      std::size_t index = 0;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && index <= n)
        index = index * 10 + std::size_t(text[i++] - '0');
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
      if (i == start || i >= text.size() || !is_space(text[i]))
        fail(scanner, start,
             "expected an attribute index and a value (\"3 1.5\") in a sparse "
             "row");
      if (index >= n)
        fail(scanner, start,
             "sparse index " + std::string(text.substr(start, i - start)) +
                 " is out of range: the file has " + std::to_string(n) +
                 " attributes, numbered from 0");
      if (index < next)
        fail(scanner, start,
             "sparse index " + std::to_string(index) +
                 " does not follow the previous index; give indices in "
                 "increasing order, each once");
      next = index + 1;
      i = read_value(scanner, text, i, ",}", row[index]);
      if (i >= text.size() || text[i] == '%')
        fail(scanner, text.size(), "the sparse row is not closed; end it with '}'");
      if (text[i] == '}') {
        ++i;
        break;
      }
      ++i;  // the comma
    }
  }
  i = skip_space(text, i);
  if (i < text.size() && text[i] == ',')
    fail(scanner, i, "instance weights ({w} after a row) are not supported; remove them");
  if (i < text.size() && text[i] != '%')
    fail(scanner, i, "unexpected text after the sparse row's '}'");
}

// Fills `row` from a dense line of comma-separated values.
void read_dense(const CsvScanner& scanner, const ArffHeader& header, std::string_view text,
                std::vector<ArffValue>& row) {
  const std::size_t n = header.attributes.size();
  std::size_t i = 0;
  for (std::size_t a = 0; a < n; ++a) {
    if (a > 0) ++i;  // the comma
    i = read_value(scanner, text, i, ",", row[a]);
    if (row[a].text.empty() && !was_quoted(text, row[a]))
      fail(scanner, row[a].column - 1,
           "empty value for attribute '" + escaped(header.attributes[a].name) +
               "'; write ? for a missing value");
    if ((i >= text.size() || text[i] == '%') && a + 1 < n)
      fail(scanner, i,
           "found " + std::to_string(a + 1) + " values, expected " + std::to_string(n) +
               " (one per @attribute line); add the missing "
               "values");
  }
  if (i < text.size() && text[i] != '%') {
    const std::size_t at = skip_space(text, i + 1);
    if (text.substr(at, 1) == "{")
      fail(scanner, at, "instance weights ({w} after a row) are not supported; remove them");
    fail(scanner, i,
         "more than the " + std::to_string(n) +
             " values of the @attribute lines; remove the extra values");
  }
}

}  // namespace

ArffHeader read_arff_header(CsvScanner& scanner) {
  scanner.set_format("ARFF");
  scanner.skip_byte_order_mark();
  ArffHeader header;
  std::map<std::string, std::size_t> names;  // name -> line
  std::string_view text;
  while (scanner.next_raw_line(text)) {
    if (is_blank_or_comment(text)) continue;
    const std::size_t at = skip_space(text, 0);
    if (text[at] != '@')
      fail(scanner, at,
           "expected @relation, @attribute or @data here; an ARFF file's header "
           "declares the attributes before the data");
    std::size_t end = at;
    while (end < text.size() && !is_space(text[end])) ++end;
    const std::string keyword = lower(text.substr(at, end - at));
    if (keyword == "@relation") {
      ArffValue name;
      read_value(scanner, text, end, "", name);
      header.relation = name.text;
    } else if (keyword == "@attribute") {
      ArffAttribute attribute = read_attribute(scanner, text, end);
      const auto [it, fresh] = names.emplace(attribute.name, attribute.line);
      if (!fresh)
        fail(scanner, at,
             "duplicate attribute name '" + escaped(attribute.name) + "' (also on line " +
                 std::to_string(it->second) + "); rename one of them");
      header.attributes.push_back(std::move(attribute));
    } else if (keyword == "@data") {
      if (header.attributes.empty())
        fail(scanner, at, "@data before any @attribute line; declare the attributes first");
      const std::size_t rest = skip_space(text, end);
      if (rest < text.size() && text[rest] != '%')
        fail(scanner, rest, "unexpected text after @data; the data start on the next line");
      header.data_line = scanner.line();
      return header;
    } else {
      fail(scanner, at,
           "unknown keyword '" + escaped(text.substr(at, end - at)) +
               "'; the header holds @relation, @attribute and @data");
    }
  }
  throw DataError(scanner.name() + ":" + std::to_string(scanner.line() + 1) +
                  ":1: the file ends before @data; an ARFF file needs @attribute lines, then "
                  "@data and the rows");
}

bool next_arff_row(CsvScanner& scanner, const ArffHeader& header, std::vector<ArffValue>& row) {
  row.resize(header.attributes.size());
  std::string_view text;
  while (scanner.next_raw_line(text)) {
    if (is_blank_or_comment(text)) continue;
    const std::size_t at = skip_space(text, 0);
    if (text[at] == '{') {
      read_sparse(scanner, header, text, at, row);
    } else {
      read_dense(scanner, header, text, row);
    }
    return true;
  }
  return false;
}

std::size_t nominal_index(const CsvScanner& scanner, const ArffAttribute& attribute,
                          const ArffValue& value) {
  const auto& values = attribute.values;
  const auto it = std::find(values.begin(), values.end(), value.text);
  if (it != values.end()) return std::size_t(it - values.begin());
  std::string listed;
  for (std::size_t k = 0; k < values.size() && k < 20; ++k)
    listed += (k ? ", " : "") + escaped(values[k]);
  if (values.size() > 20) listed += ", ...";
  throw DataError(scanner.where(std::max<std::size_t>(value.column, 1)) + ": value '" +
                  escaped(value.text) + "' of attribute '" + escaped(attribute.name) +
                  "' is not one of its nominal values {" + listed + "} (line " +
                  std::to_string(attribute.line) + "); correct the value or declare it");
}

}  // namespace radial::data
