#include "npy_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string_view>
#include <vector>

#include "radial/errors.hpp"
#include "target_coding.hpp"

namespace radial::data {
namespace {

// A read-only mapping of a whole file, unmapped on every path out.
class MappedFile {
 public:
  MappedFile(const std::filesystem::path& file, const std::string& name) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      throw DataError(name + ": cannot open the data file (" + std::strerror(errno) +
                      "); check the path");
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
      const int error = errno;
      ::close(fd);
      throw DataError(name + ": cannot read the file size (" + std::strerror(error) + ")");
    }
    size_ = static_cast<std::size_t>(info.st_size);
    if (size_ != 0) {
      void* map = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map == MAP_FAILED) {
        const int error = errno;
        ::close(fd);
        throw DataError(name + ": cannot memory-map the file (" + std::strerror(error) + ")");
      }
      data_ = static_cast<const char*>(map);
    }
    ::close(fd);  // the mapping stays valid
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Read front to back: ask the kernel to read ahead.
  void sequential() const {
    if (data_ != nullptr) ::madvise(const_cast<char*>(data_), size_, MADV_SEQUENTIAL);
  }
  // Drops the pages wholly before byte `end` from this process (they stay in the page cache),
  // so pages already copied do not count in the resident set: the file is read once, and
  // memory holds the copy only (issue 6, data + 256 MB).
  void release_before(std::size_t end) {
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t upto = std::min(end, size_) / page * page;
    if (data_ != nullptr && upto > released_) {
      ::madvise(const_cast<char*>(data_) + released_, upto - released_, MADV_DONTNEED);
      released_ = upto;
    }
  }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t released_ = 0;
};

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

}  // namespace

Dataset read_npy(const std::filesystem::path& file, const DataOptions& options) {
  const std::string name = file.string();
  MappedFile mapped(file, name);
  const char* bytes = mapped.data();
  const std::size_t size = mapped.size();

  constexpr std::string_view magic("\x93NUMPY", 6);
  if (size < 10 || std::string_view(bytes, 6) != magic) {
    throw DataError(name + ": not a NumPy .npy file (" +
                    (size < 10 ? "only " + std::to_string(size) + " bytes" : "no \\x93NUMPY magic") +
                    "); write it with numpy.save, or give the data as CSV");
  }
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) {
    throw DataError(name + ": .npy format version " + std::to_string(major) +
                    " is not supported (1, 2 and 3 are); rewrite it with numpy.save");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  const std::size_t prefix = 8 + length_bytes;
  if (size < prefix) throw DataError(name + ": truncated .npy header; the file is incomplete");
  const std::size_t header_length = little_endian(bytes + 8, length_bytes);
  if (size < prefix + header_length) {
    throw DataError(name + ": truncated .npy header (it declares " +
                    std::to_string(header_length) + " bytes, the file has " +
                    std::to_string(size - prefix) + "); the file is incomplete");
  }
  const NpyHeader header =
      HeaderParser(std::string_view(bytes + prefix, header_length), name).parse();

  if (header.descr != "<f8") {
    throw DataError(name + ": dtype '" + header.descr +
                    "' is not supported; Radial reads little-endian float64 ('<f8'): save "
                    "a.astype('<f8') instead");
  }
  if (header.fortran_order) {
    throw DataError(name + ": the array is stored in Fortran (column-major) order; Radial "
                    "reads C order: save numpy.ascontiguousarray(a) instead");
  }
  if (header.shape.size() != 2) {
    throw DataError(name + ": the array has " + std::to_string(header.shape.size()) +
                    " dimension(s); Radial reads a 2-D array (rows x columns, last column the "
                    "target)");
  }
  const std::size_t rows = header.shape[0], columns = header.shape[1];
  if (columns < 2) {
    throw DataError(name + ": the array has " + std::to_string(columns) +
                    " column(s); it needs at least one input column and the target as its "
                    "last column");
  }
  if (rows == 0) throw DataError(name + ": the array has no rows; add at least one row");
  const std::size_t available = (size - prefix - header_length) / sizeof(double);
  if (rows > available / columns) {
    throw DataError(name + ": the file is truncated: shape (" + std::to_string(rows) + ", " +
                    std::to_string(columns) + ") needs " + std::to_string(rows) + " x " +
                    std::to_string(columns) + " values, the file holds " +
                    std::to_string(available) + "; the file is incomplete, write it again");
  }

  Dataset data;
  data.source = name;
  data.target_name = options.target.empty() ? "y" : options.target;
  const std::size_t d = columns - 1;
  for (std::size_t j = 0; j < d; ++j) data.feature_names.push_back("x" + std::to_string(j + 1));

  const std::size_t offset = prefix + header_length;
  const char* values = bytes + offset;
  data.inputs = Matrix::from_shape({rows, d});
  std::vector<double> target(rows);
  std::vector<double> row(columns);
  mapped.sequential();
  constexpr std::size_t release_rows = 8192;  // give back the mapped pages every ~1 MB
  for (std::size_t i = 0; i < rows; ++i) {
    if (i % release_rows == 0) mapped.release_before(offset + i * columns * sizeof(double));
    // memcpy: the data offset is not guaranteed to be 8-byte aligned in old files.
    std::memcpy(row.data(), values + i * columns * sizeof(double), columns * sizeof(double));
    for (std::size_t j = 0; j < columns; ++j) {
      if (!std::isfinite(row[j])) {
        throw DataError(name + ": row " + std::to_string(i + 1) + ", column " +
                        std::to_string(j + 1) + " is " + (std::isnan(row[j]) ? "NaN" : "infinite") +
                        "; NaN and Inf are not allowed: impute the value or remove the row");
      }
    }
    std::copy(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(d), &data.inputs(i, 0));
    target[i] = row[d];
  }
  mapped.release_before(mapped.size());
  code_target(data, target, options, [&](std::size_t i) {
    return name + ": row " + std::to_string(i + 1) + ", column " + std::to_string(columns);
  });
  return data;
}

}  // namespace radial::data
