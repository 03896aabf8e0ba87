#pragma once
// Per-feature standardisation z = (x - mean) / scale, fitted on training data only and stored in
// the model. A constant column gets scale 1 (it maps to 0 instead of dividing by zero). Any
// finite values work, up to the largest double: the mean and scale are computed on values scaled
// by a power of two, so no sum overflows.

#include "radial/core/dataset.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct Standardiser {
  Vector mean;   // d
  Vector scale;  // d, > 0

  bool fitted() const { return mean.size() != 0; }
  // Returns the number of constant columns (scale set to 1). Under a ShardedScope `inputs` are
  // this rank's rows (possibly none) and the statistics are those of all ranks' rows; every rank
  // must call it (collectives).
  std::size_t fit(const Matrix& inputs);
  void apply(Matrix& inputs) const;  // in place; ShapeError if the column count differs
  // After fit on coded inputs: each nominal input of `coding` gets one scale for all its
  // indicator columns, sqrt(1 - sum_k p_k^2) with p_k their fitted means (the categories'
  // frequencies among the rows where the input is observed); NominalScale::Input in
  // radial/core/input_coding.hpp says why. An input with one category keeps scale 1 (constant).
  // The means are those of fit, so under a ShardedScope every rank gets the same scales.
  void scale_nominal_inputs(const InputCoding& coding);
};

// For training without standardisation: DataError naming the file, column and row of an input
// so large that squared distances between points overflow (|x| >= sqrt(DBL_MAX / 4d), about
// 1e154), with what to change.
void check_unstandardised_range(const Dataset& data);

}  // namespace radial
