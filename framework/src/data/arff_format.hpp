#pragma once
// Weka's ARFF text format (Weka 3), private to the data readers: the header (@relation,
// @attribute numeric / integer / real / string / {nominal values}, @data) and data rows, dense
// (`1.5,red,?`) or sparse (`{0 1.5, 2 red}`: 0-based attribute indices in increasing order; an
// omitted numeric value is 0, an omitted nominal value the attribute's first value). `%` starts
// a comment (outside quotes), blank lines are skipped anywhere, keywords and type names are
// case-insensitive, values and names may be quoted with ' or " (backslash escapes \n, \t, \r,
// and \<any> for that character). `?` unquoted is a missing value. Date and relational
// attributes and instance weights (`{w}` after a row) are refused, naming file:line:column.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "csv_scanner.hpp"

namespace radial::data {

struct ArffAttribute {
  enum class Kind { Numeric, Nominal, String };
  std::string name;
  Kind kind = Kind::Numeric;
  std::vector<std::string> values;  // nominal: the declared values, in declared order
  std::size_t line = 0;             // where it is declared
};

struct ArffHeader {
  std::string relation;
  std::vector<ArffAttribute> attributes;
  std::size_t data_line = 0;  // the line of @data
};

// One value of a data row.
struct ArffValue {
  std::string text;        // quotes removed, escapes read
  std::size_t column = 0;  // 1-based character column where the value starts (0: omitted)
  bool missing = false;    // `?`, unquoted
};

// Reads the header through the @data line (the scanner then stands at the first data line).
// DataError naming file:line:column for anything the format does not allow, no attributes,
// duplicate attribute names, an empty nominal list, and a file without @data.
ArffHeader read_arff_header(CsvScanner& scanner);

// The next data row, one value per attribute (sparse rows filled with the omitted values); false
// at the end of the data. Blank and comment lines are skipped. DataError for a wrong value
// count, bad quoting, sparse indices out of order or range, and instance weights.
bool next_arff_row(CsvScanner& scanner, const ArffHeader& header, std::vector<ArffValue>& row);

// The index of `value` among a nominal attribute's values; DataError naming the value's
// position and the declared values when it is not one of them.
std::size_t nominal_index(const CsvScanner& scanner, const ArffAttribute& attribute,
                          const ArffValue& value);

}  // namespace radial::data
