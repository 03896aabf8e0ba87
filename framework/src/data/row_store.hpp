#pragma once
// Values parsed row by row, kept in chunks of anonymous memory until the row count is known,
// then moved into one Matrix chunk by chunk. Each chunk is unmapped as soon as it is copied, and
// the Matrix's pages are only touched as they are written, so the peak is the data plus one
// chunk, not two copies (issue 10: a CSV reads in its parsed size + 64 MB).

#include <cstddef>
#include <vector>

#include "radial/types.hpp"

namespace radial::data {

class RowStore {
 public:
  // Chunks of 32 MB: mapped directly, so that unmapping returns them to the system at once
  // (a malloc'ed block may stay in the heap).
  static constexpr std::size_t chunk_values = std::size_t(4) << 20;

  RowStore() = default;
  RowStore(const RowStore&) = delete;
  RowStore& operator=(const RowStore&) = delete;
  ~RowStore();

  void push(double value) {
    if (fill_ == chunk_values) grow();
    chunks_.back()[fill_++] = value;
  }
  std::size_t size() const {
    return chunks_.empty() ? 0 : (chunks_.size() - 1) * chunk_values + fill_;
  }

  // The values as a rows x columns matrix (rows * columns must equal size()); empties the store.
  Matrix into_matrix(std::size_t rows, std::size_t columns);
  // The values as a vector; empties the store.
  Vector into_vector();

 private:
  void grow();
  void release();
  // Copies every chunk to `out` in order, unmapping each once copied.
  void drain(double* out);

  std::vector<double*> chunks_;
  std::size_t fill_ = chunk_values;
};

}  // namespace radial::data
