#include "row_store.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

#include "radial/errors.hpp"

namespace radial::data {

namespace {
constexpr std::size_t chunk_bytes = RowStore::chunk_values * sizeof(double);
}

RowStore::~RowStore() { release(); }

void RowStore::grow() {
  chunks_.reserve(chunks_.size() + 1);  // first, so that push_back cannot throw and leak the chunk
  void* chunk = ::mmap(nullptr, chunk_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
  if (chunk == MAP_FAILED) throw std::bad_alloc();
  chunks_.push_back(static_cast<double*>(chunk));
  fill_ = 0;
}

void RowStore::release() {
  for (double* chunk : chunks_) ::munmap(chunk, chunk_bytes);
  chunks_.clear();
  fill_ = chunk_values;
}

void RowStore::drain(double* out) {
  for (std::size_t c = 0; c < chunks_.size(); ++c) {
    const std::size_t count = c + 1 == chunks_.size() ? fill_ : chunk_values;
    out = std::copy_n(chunks_[c], count, out);
    ::munmap(chunks_[c], chunk_bytes);
    chunks_[c] = nullptr;
  }
  chunks_.clear();
  fill_ = chunk_values;
}

Matrix RowStore::into_matrix(std::size_t rows, std::size_t columns) {
  if (rows * columns != size()) {
    throw Error("RowStore: " + std::to_string(size()) + " values do not make " +
                std::to_string(rows) + " x " + std::to_string(columns));
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
