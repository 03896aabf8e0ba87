#pragma once
// Per-feature standardisation z = (x - mean) / scale, fitted on training data only and stored in
// the model. A constant column gets scale 1 (it maps to 0 instead of dividing by zero).

#include "radial/types.hpp"

namespace radial {

struct Standardiser {
  Vector mean;   // d
  Vector scale;  // d, > 0

  bool fitted() const { return mean.size() != 0; }
  // Returns the number of constant columns (scale set to 1).
  std::size_t fit(const Matrix& inputs);
  void apply(Matrix& inputs) const;  // in place; ShapeError if the column count differs
};

}  // namespace radial
