#include "row_store.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

#include "radial/core/errors.hpp"

namespace radial::data {

RowStore::~RowStore() { release(); }

void RowStore::reserve(std::size_t values) {
  if (values == 0 || size() != 0 || reserving_) return;
  reserved_ = Matrix::from_shape({values, std::size_t(1)});  // pages touched only when written
  reserved_values_ = current_ = reserved_.data();
  capacity_ = values;
  fill_ = 0;
  reserving_ = true;
}

void RowStore::reserve_in(double* out, std::size_t values) {
  if (values == 0 || size() != 0 || reserving_) return;
  reserved_values_ = current_ = out;
  capacity_ = values;
  fill_ = 0;
  reserving_ = external_ = true;
}

void RowStore::grow() {
  if (reserving_) {
    // More values than reserved: the block becomes the first chunk's contents.
    reserving_ = false;
    const std::size_t held = fill_;
    fill_ = capacity_ = 0;
    current_ = nullptr;
    std::size_t copied = 0;
    while (copied < held) {
      grow();
      const std::size_t count = std::min(capacity_, held - copied);
      std::copy_n(reserved_values_ + copied, count, current_);
      fill_ = count;
      copied += count;
    }
    reserved_ = Matrix();
    reserved_values_ = nullptr;
    external_ = false;
    if (fill_ < capacity_) return;
  }
  const std::size_t capacity =
      chunks_.empty() ? first_chunk_values : std::min(2 * capacity_, max_chunk_values);
  chunks_.reserve(chunks_.size() + 1);  // first, so that push_back cannot throw and leak the chunk
  void* chunk = ::mmap(nullptr, capacity * sizeof(double), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (chunk == MAP_FAILED) throw std::bad_alloc();
  full_values_ += fill_;
  chunks_.push_back({static_cast<double*>(chunk), capacity});
  current_ = static_cast<double*>(chunk);
  capacity_ = capacity;
  fill_ = 0;
}

void RowStore::release() {
  reserved_ = Matrix();
  reserved_values_ = nullptr;
  reserving_ = external_ = false;
  for (const Chunk& chunk : chunks_) {
    if (chunk.values != nullptr) ::munmap(chunk.values, chunk.capacity * sizeof(double));
  }
  chunks_.clear();
  current_ = nullptr;
  fill_ = capacity_ = full_values_ = 0;
}

void RowStore::drain(double* out) {
  if (reserving_) {
    std::copy_n(reserved_values_, fill_, out);
    release();
    return;
  }
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const std::size_t count = c + 1 == chunks_.size() ? fill_ : chunks_[c].capacity;
    out = std::copy_n(chunks_[c].values, count, out);
    ::munmap(chunks_[c].values, chunks_[c].capacity * sizeof(double));
    chunks_[c].values = nullptr;
  }
  chunks_.clear();
  release();
}

Matrix RowStore::into_matrix(std::size_t rows, std::size_t columns) {
  if (rows * columns != size()) {
    throw Error("RowStore: " + std::to_string(size()) + " values do not make " +
                std::to_string(rows) + " x " + std::to_string(columns));
  }
  if (reserving_ && !external_ && fill_ == reserved_.size()) {
    Matrix m = std::move(reserved_);
    m.reshape({rows, columns});
    release();
    return m;
  }
  Matrix m = Matrix::from_shape({rows, columns});
  drain(m.data());
  return m;
}

Vector RowStore::into_vector() {
  Vector v = Vector::from_shape({size()});
  drain(v.data());
  return v;
}

}  // namespace radial::data
