#pragma once
// The bytes of a NumPy format 1.0 file (numpy/lib/format.py) holding a rows x columns float64
// array in C order: magic, version, header length, a dict padded with spaces and a newline so
// that the data start at a multiple of 64 bytes, then the values.

#include <cstddef>
#include <string>
#include <vector>

namespace radial::testing {

inline std::string npy_bytes(std::size_t rows, std::size_t columns, const std::vector<double>& v) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(columns) + "), }";
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += char(header.size() & 0xff);
  bytes += char(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
  return bytes;
}

}  // namespace radial::testing
