#include "npy_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <functional>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <errno.h>
#include <unistd.h>

#include "csv_shard.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/core/errors.hpp"
#include "radial/io/input_file.hpp"
#include "row_store.hpp"
#include "target_coding.hpp"
#include "text_escape.hpp"

namespace radial::data {
namespace {

// The header dictionary, e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::size_t> shape;
  bool has_descr = false, has_order = false, has_shape = false;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  NpyHeader parse() {
    NpyHeader header;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = quoted();
      expect(':');
      skip_space();
      if (key == "descr") {
        header.descr = quoted();
        header.has_descr = true;
      } else if (key == "fortran_order") {
        header.fortran_order = boolean();
        header.has_order = true;
      } else if (key == "shape") {
        header.shape = tuple();
        header.has_shape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      skip_space();
      if (peek() == ',') ++pos_;
    }
    if (!header.has_descr || !header.has_order || !header.has_shape) {
      fail("missing 'descr', 'fortran_order' or 'shape'");
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(name_ + ": malformed .npy header (" + what + " at header character " +
                    std::to_string(pos_ + 1) + "); rewrite the file with numpy.save");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string quoted() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return out;
  }
  bool boolean() {
    if (text_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (text_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }
  std::vector<std::size_t> tuple() {
    expect('(');
    std::vector<std::size_t> out;
    while (true) {
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return out;
      }
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("expected a dimension");
      std::size_t value = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        const auto digit = static_cast<std::size_t>(text_[pos_++] - '0');
        if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10) fail("dimension too large");
        value = value * 10 + digit;
      }
      // Python writes long integers with an L suffix in old files.
      if (peek() == 'L') ++pos_;
      out.push_back(value);
      skip_space();
      if (peek() == ',') ++pos_;
    }
  }

  std::string_view text_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::uint32_t little_endian(const char* bytes, std::size_t count) {
  std::uint32_t value = 0;
  for (std::size_t i = count; i-- > 0;) {
    value = (value << 8) | static_cast<unsigned char>(bytes[i]);
  }
  return value;
}

constexpr std::size_t max_header_bytes = std::size_t(1) << 20;

// An open .npy file positioned at its first value, with the header checked: float64, C order,
// 2-D, at least one row and `min_columns` columns, and (for a regular file) as many values as the
// shape claims, so nothing is allocated for values the file does not hold.
class NpyInput {
 public:
  // `ranks` > 1: the file is to be sharded, so a stream is refused before anything is read.
  NpyInput(const std::filesystem::path& file, std::size_t min_columns, int ranks = 1)
      : in_(InputFile::open<DataError>(file, "data file")), name_(file.string()) {
    if (ranks > 1) require_shardable(in_.regular(), name_, ranks);
    constexpr std::string_view magic("\x93NUMPY", 6);
    std::string prefix = read_up_to(8);
    if (prefix.size() >= 7 && prefix.compare(0, 6, magic) == 0) {
      const int major = static_cast<unsigned char>(prefix[6]);
      if (major < 1 || major > 3) {
        throw DataError(name_ + ": .npy format version " + std::to_string(major) +
                        " is not supported (1, 2 and 3 are); rewrite it with numpy.save");
      }
      prefix += read_up_to(major == 1 ? 2 : 4);
    }
    if (prefix.size() < 10 || prefix.compare(0, 6, magic) != 0) {
      throw DataError(name_ + ": not a NumPy .npy file (" +
                      (prefix.size() < 10 && (prefix.size() < 6 || prefix.compare(0, 6, magic) == 0)
                           ? "only " + std::to_string(prefix.size()) + " bytes"
                           : "no \\x93NUMPY magic") +
                      "); write it with numpy.save, or give the data as CSV");
    }
    const std::size_t length_bytes = prefix.size() - 8;
    if (length_bytes != 2 && length_bytes != 4)
      throw DataError(name_ + ": truncated .npy header; the file is incomplete");
    const std::size_t header_length = little_endian(prefix.data() + 8, length_bytes);
    if (header_length > max_header_bytes) {
      throw DataError(name_ + ": the .npy header declares " + std::to_string(header_length) +
                      " bytes, more than the " + byte_count_text(max_header_bytes) +
                      " Radial reads; rewrite the file with numpy.save");
    }
    const std::string header_text = read_up_to(header_length);
    if (header_text.size() < header_length) {
      throw DataError(name_ + ": truncated .npy header (it declares " +
                      std::to_string(header_length) + " bytes, the file has " +
                      std::to_string(header_text.size()) + "); the file is incomplete");
    }
    const NpyHeader header = HeaderParser(header_text, name_).parse();

    if (header.descr != "<f8") {
      throw DataError(name_ + ": dtype '" + header.descr +
                      "' is not supported; Radial reads little-endian float64 ('<f8'): save "
                      "a.astype('<f8') instead");
    }
    if (header.fortran_order) {
      throw DataError(name_ + ": the array is stored in Fortran (column-major) order; Radial "
                      "reads C order: save numpy.ascontiguousarray(a) instead");
    }
    if (header.shape.size() != 2) {
      throw DataError(name_ + ": the array has " + std::to_string(header.shape.size()) +
                      " dimension(s); Radial reads a 2-D array (rows x columns, last column the "
                      "target)");
    }
    rows_ = header.shape[0];
    columns_ = header.shape[1];
    data_offset_ = prefix.size() + header_length;
    count_ = rows_;
    if (columns_ < min_columns) {
      throw DataError(name_ + ": the array has " + std::to_string(columns_) +
                      " column(s); it needs at least one input column and the target as its "
                      "last column");
    }
    if (rows_ == 0) throw DataError(name_ + ": the array has no rows; add at least one row");
    const std::size_t row_bytes = columns_ * sizeof(double);
    if (columns_ > max_header_bytes) {
      throw DataError(name_ + ": the array claims " + std::to_string(columns_) +
                      " columns; Radial reads at most " + std::to_string(max_header_bytes) +
                      " columns");
    }
    if (in_.regular()) {
      const std::uint64_t available =
          (in_.size() - std::min<std::uint64_t>(in_.size(), prefix.size() + header_length)) /
          sizeof(double);
      if (rows_ > available / columns_) truncated(available);
    } else if (rows_ > std::numeric_limits<std::size_t>::max() / row_bytes) {
      truncated(0);
    }
  }

  std::size_t rows() const { return rows_; }
  // Rows for_each_row visits: all, or those selected.
  std::size_t selected_rows() const { return count_; }
  std::size_t first_row() const { return first_; }

  // Visits only the rows `range` (of a regular file): the reads start at its first row, so the
  // other rows' bytes are never read.
  void select(RowRange range) {
    if (::lseek(in_.fd(), off_t(data_offset_ + range.first * columns_ * sizeof(double)),
                SEEK_SET) < 0) {
      throw DataError(name_ + ": cannot seek to row " + std::to_string(range.first + 1) + ": " +
                      std::strerror(errno) + "; give a regular file");
    }
    first_ = range.first;
    count_ = range.count;
  }
  std::size_t columns() const { return columns_; }
  const std::string& name() const { return name_; }
  // The columns in which NaN is a missing value ([data] missing other than "error"): NaN there
  // is passed on as NaN (as the CSV reader gives an empty cell); elsewhere it is refused.
  void allow_missing(std::vector<bool> columns) { missing_ok_ = std::move(columns); }

  // Calls row(i, values) for every (selected) row, i counted from the first selected row,
  // values being `columns()` finite doubles (or NaN in the columns of allow_missing).
  template <class F>
  void for_each_row(F&& row) {
    const std::size_t row_bytes = columns_ * sizeof(double);
    const std::size_t block_rows = std::max<std::size_t>(1, (std::size_t(1) << 20) / row_bytes);
    std::vector<double> block(block_rows * columns_);
    std::size_t done = 0;
    while (done < count_) {
      const std::size_t want = std::min(block_rows, count_ - done);
      const std::size_t got = read_into(reinterpret_cast<char*>(block.data()), want * row_bytes);
      if (got < want * row_bytes) truncated(((first_ + done) * row_bytes + got) / sizeof(double));
      for (std::size_t r = 0; r < want; ++r) {
        const double* values = block.data() + r * columns_;
        for (std::size_t j = 0; j < columns_; ++j)
          if (!std::isfinite(values[j])) refuse(first_ + done + r, j, values[j]);
        row(done + r, values);
      }
      done += want;
    }
  }

 private:
  // A value that is not finite at (row, column), both 0-based: NaN where allow_missing says so
  // is a missing value; anything else a DataError naming the row, the column and the remedy.
  void refuse(std::size_t row, std::size_t j, double value) const {
    const bool nan = std::isnan(value);
    if (nan && j < missing_ok_.size() && missing_ok_[j]) return;
    const std::string where = name_ + ": row " + std::to_string(row + 1) + ", column " +
                              std::to_string(j + 1) + " is ";
    if (nan && !missing_ok_.empty()) {
      throw DataError(where + "NaN in the target column; every row needs its target: remove "
                      "the row");
    }
    if (nan) {
      throw DataError(where + "NaN, which is read as a missing input only when data.missing is "
                      "\"drop-rows\", \"mean\", \"median\" or \"em\" (here it is \"error\"); "
                      "set data.missing, impute the value or remove the row");
    }
    throw DataError(where + "infinite; NaN and Inf are not allowed: impute the value or remove "
                    "the row");
  }
  [[noreturn]] void truncated(std::uint64_t held) const {
    throw DataError(name_ + ": the file is truncated: shape (" + std::to_string(rows_) + ", " +
                    std::to_string(columns_) + ") needs " + std::to_string(rows_) + " x " +
                    std::to_string(columns_) + " values, the file holds " +
                    std::to_string(held) + "; the file is incomplete, write it again");
  }
  // Reads until `count` bytes or the end of the file; returns the bytes read.
  std::size_t read_into(char* out, std::size_t count) {
    std::size_t got = 0;
    while (got < count) {
      const std::size_t n = in_.read_some<DataError>(out + got, count - got);
      if (n == 0) break;
      got += n;
    }
    return got;
  }
  std::string read_up_to(std::size_t count) {
    std::string bytes(count, '\0');
    bytes.resize(read_into(bytes.data(), count));
    return bytes;
  }

  InputFile in_;
  std::string name_;
  std::size_t rows_ = 0, columns_ = 0;
  std::uint64_t data_offset_ = 0;           // where the values begin
  std::size_t first_ = 0, count_ = 0;       // the rows for_each_row visits
  std::vector<bool> missing_ok_;            // columns where NaN is a missing value
};

// The target column (0-based) chosen by DataOptions::target: empty or "y" for the last column,
// or a 1-based column number. A .npy file has no names: another name is refused when the user
// wrote it in [data], and names the last column when it is a model's target name.
std::size_t target_column(const DataOptions& options, std::size_t columns, const std::string& name) {
  const std::string& target = options.target;
  if (target.empty() || target == "y") return columns - 1;
  std::size_t number = 0;
  const auto [end, error] = std::from_chars(target.data(), target.data() + target.size(), number);
  const bool is_number = error == std::errc() && end == target.data() + target.size();
  if (!is_number && !options.target_from_pipeline) return columns - 1;
  if (!is_number || number < 1 || number > columns) {
    throw DataError(name + ": data.target = '" + escaped(target) +
                    "', but a .npy file has no column names: give the target's column number, "
                    "1 to " + std::to_string(columns) +
                    " (target = \"" + std::to_string(columns) +
                    "\"), or leave data.target out for the last column");
  }
  return number - 1;
}

// "x<j>" -> j (1-based), 0 for any other name.
std::size_t positional_name(const std::string& feature) {
  std::size_t j = 0;
  if (feature.size() < 2 || feature[0] != 'x') return 0;
  const auto [end, error] = std::from_chars(feature.data() + 1, feature.data() + feature.size(), j);
  return error == std::errc() && end == feature.data() + feature.size() ? j : 0;
}

// Reads the selected rows of `in` into a data set named as read_npy names it.
Dataset npy_dataset(NpyInput& in, const DataOptions& options, std::size_t target,
                    RowStore& targets) {
  const std::size_t columns = in.columns();
  Dataset data;
  data.source = in.name();
  // A numbered target keeps its number as its name, so that `evaluate` finds it again.
  data.target_name = options.target.empty() ? "y" : options.target;
  // Inputs are named by their column in the file: x1..xd when the target is last.
  for (std::size_t j = 0; j < columns; ++j) {
    if (j != target) data.feature_names.push_back("x" + std::to_string(j + 1));
  }
  // A missing target too: its row is left out by the target's coding (code_target).
  if (options.allow_missing) in.allow_missing(std::vector<bool>(columns, true));
  RowStore inputs;
  in.for_each_row([&](std::size_t, const double* values) {
    for (std::size_t j = 0; j < columns; ++j) (j == target ? targets : inputs).push(values[j]);
  });
  data.inputs = inputs.into_matrix(in.selected_rows(), columns - 1);
  return data;
}

// The file columns holding a model's `feature_names` (see read_npy_inputs).
std::vector<std::size_t> npy_input_columns(const NpyInput& in,
                                           const std::vector<std::string>& feature_names) {
  const std::size_t d = feature_names.size(), columns = in.columns();
  // Features named x<j> (a model trained on a .npy file) take column j; other names (a model
  // trained on CSV) take the columns in order, the target, if present, being the last.
  std::vector<std::size_t> source(d);
  bool by_name = true;
  for (std::size_t j = 0; j < d; ++j) {
    const std::size_t column = positional_name(feature_names[j]);
    by_name = by_name && column >= 1 && column <= columns;
    source[j] = column - 1;
  }
  if (!by_name) {
    if (columns != d && columns != d + 1) {
      throw DataError(in.name() + ": the array has " + std::to_string(columns) +
                      " columns, but the model needs " + std::to_string(d) +
                      " inputs; give the " + std::to_string(d) +
                      " input columns in the model's order (and optionally the target last)");
    }
    for (std::size_t j = 0; j < d; ++j) source[j] = j;
  }
  return source;
}

Matrix npy_inputs(NpyInput& in, const std::vector<std::size_t>& source, bool allow_missing) {
  if (allow_missing) {
    std::vector<bool> columns(in.columns(), false);
    for (const std::size_t column : source) columns[column] = true;
    in.allow_missing(std::move(columns));
  }
  RowStore inputs;
  in.for_each_row([&](std::size_t, const double* values) {
    for (const std::size_t column : source) inputs.push(values[column]);
  });
  return inputs.into_matrix(in.selected_rows(), source.size());
}

// Where target value i of the selected rows is, for messages.
std::function<std::string(std::size_t)> npy_where(const NpyInput& in, std::size_t target) {
  return [name = in.name(), first = in.first_row(), target](std::size_t i) {
    return name + ": row " + std::to_string(first + i + 1) + ", column " +
           std::to_string(target + 1);
  };
}

}  // namespace

Dataset read_npy(const std::filesystem::path& file, const DataOptions& options) {
  NpyInput in(file, 2);
  const std::size_t target = target_column(options, in.columns(), in.name());
  RowStore targets;
  Dataset data = npy_dataset(in, options, target, targets);
  code_target(data, targets.into_vector(), options, npy_where(in, target));
  return data;
}

Matrix read_npy_inputs(const std::filesystem::path& file,
                       const std::vector<std::string>& feature_names, bool allow_missing) {
  NpyInput in(file, 1);
  return npy_inputs(in, npy_input_columns(in, feature_names), allow_missing);
}

Dataset read_npy_shard(const std::filesystem::path& file, const DataOptions& options) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return read_npy(file, options);
  std::optional<NpyInput> in;
  std::size_t target = 0;
  Dataset data;
  Vector targets;
  agreed([&] {
    in.emplace(file, 2, comm.size());
    target = target_column(options, in->columns(), in->name());
    in->select(block_shard(in->rows(), comm.rank(), comm.size(), parallel_block_rows));
    RowStore store;
    data = npy_dataset(*in, options, target, store);
    targets = store.into_vector();
  });
  code_target_shard(data, std::move(targets), options, npy_where(*in, target));
  return data;
}

Matrix read_npy_inputs_shard(const std::filesystem::path& file,
                             const std::vector<std::string>& feature_names, bool allow_missing) {
  Collectives& comm = collectives();
  if (comm.size() == 1) return read_npy_inputs(file, feature_names, allow_missing);
  Matrix inputs;
  agreed([&] {
    NpyInput in(file, 1, comm.size());
    const std::vector<std::size_t> source = npy_input_columns(in, feature_names);
    in.select(block_shard(in.rows(), comm.rank(), comm.size(), parallel_block_rows));
    inputs = npy_inputs(in, source, allow_missing);
  });
  return inputs;
}

}  // namespace radial::data
