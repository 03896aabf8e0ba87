#pragma once
// Folds given by the user ([evaluate] fold_column or fold_file), so that a comparison with
// another tool runs on its exact splits (internal to the trainer).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "radial/core/dataset.hpp"
#include "radial/pipeline/pipeline.hpp"

namespace radial::training {

struct UserFolds {
  std::vector<std::size_t> fold;  // this rank's training rows: fold 0..count-1
  std::size_t count = 0;          // distinct folds over all ranks' rows
};

// The folds of `spec`, or empty when it gives none. A fold column is taken out of the inputs of
// `train` (and of `test`, which must have it too); its values, or the fold file's (one integer
// per training row, after an optional header line), are renumbered 0..k-1 in increasing order
// over all ranks. InputError naming the column, file and line for a value that is not an
// integer, a file whose row count differs from the data's, or fewer than 2 distinct folds.
std::optional<UserFolds> read_user_folds(const EvaluateSpec& spec, Dataset& train, Dataset* test);

// Leaves out the folds of the rows of `inputs` that have a missing input (before
// drop_missing_rows leaves out the rows themselves). InputError when a fold then has no row
// left (over all ranks; collective).
void drop_missing_rows_of(UserFolds& folds, const Matrix& inputs);

// The folds of the rows `rows` (a subset that leaves out fold `left_out`), renumbered
// 0..count-2: the folds of a search nested in outer fold `left_out`.
UserFolds folds_without(const UserFolds& folds, const std::vector<std::size_t>& rows,
                        std::size_t left_out);

}  // namespace radial::training
