#pragma once
// Values parsed row by row, kept in chunks of anonymous memory until the row count is known,
// then moved into one Matrix chunk by chunk (or, when the rows were counted first, written into
// that Matrix directly: reserve()). Each chunk is unmapped as soon as it is copied, and
// the Matrix's pages are only touched as they are written, so the peak is the data plus one
// chunk, not two copies (a CSV reads in its parsed size + 64 MB). Chunks grow from
// 64 KB to 32 MB, so a small file costs little.

#include <cstddef>
#include <vector>

#include "radial/core/types.hpp"

namespace radial::data {

class RowStore {
 public:
  static constexpr std::size_t first_chunk_values = std::size_t(8) << 10;  // 64 KB
  static constexpr std::size_t max_chunk_values = std::size_t(4) << 20;    // 32 MB

  RowStore() = default;
  RowStore(const RowStore&) = delete;
  RowStore& operator=(const RowStore&) = delete;
  ~RowStore();

  // Before the first push: room for `values` values in one Matrix that into_matrix returns
  // without a copy when exactly that many were pushed (a count of the rows to come makes it
  // exact; more spill into chunks, fewer are copied out).
  void reserve(std::size_t values);
  // The same in the caller's memory: `values` values at `out` (a slice of a matrix that several
  // stores fill at once). More values spill into chunks, leaving size() above `values`, which
  // the caller checks (into_matrix and into_vector copy such a store's values out).
  void reserve_in(double* out, std::size_t values);
  // Values pushed into reserve_in's memory and no further.
  bool filled_in_place(std::size_t values) const {
    return reserving_ && external_ && fill_ == values;
  }

  void push(double value) {
    if (fill_ == capacity_) grow();
    current_[fill_++] = value;
  }
  std::size_t size() const { return full_values_ + fill_; }

  // The values as a rows x columns matrix (rows * columns must equal size()); empties the store.
  Matrix into_matrix(std::size_t rows, std::size_t columns);
  // The values as a vector; empties the store.
  Vector into_vector();

 private:
  struct Chunk {
    double* values;
    std::size_t capacity;
  };
  void grow();
  void release();
  // Copies every chunk to `out` in order, unmapping each once copied.
  void drain(double* out);

  // Mapped directly, so that unmapping returns a chunk to the system at once (a malloc'ed
  // block may stay in the heap).
  std::vector<Chunk> chunks_;
  Matrix reserved_;  // values x 1 while reserve()'s block is in use, else empty
  double* reserved_values_ = nullptr;  // reserve()'s block or reserve_in's memory
  bool reserving_ = false, external_ = false;
  double* current_ = nullptr;
  std::size_t fill_ = 0, capacity_ = 0, full_values_ = 0;
};

}  // namespace radial::data
