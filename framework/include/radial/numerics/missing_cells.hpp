#pragma once
// Missing (NaN) cells as the numerics meet them: whether there are any, each column's mean over
// its observed cells, and filling them in. k-means' sample, the K-d tree and the mixture EM
// start from these, below the readers' missing-value policies (radial/data/missing_values.hpp,
// which [data] missing = "mean" fits with observed_means).
//
// Under mpirun (a ShardedScope of P > 1 ranks) `inputs` are this rank's rows, and has_missing,
// observed_means and mean_imputed are collective: every rank calls them, in the same order, and
// gets the answer for the rows of all ranks, equal to the bit to what one process computes.

#include "radial/core/types.hpp"

namespace radial {

// Whether any cell of `inputs` is missing (NaN); sharded: in any rank's rows (collective).
bool has_missing(const Matrix& inputs);

// Each column's mean over its observed cells, summed in row order (sharded: continued rank
// after rank, chain_over_ranks); 0 for a column with none (collective).
Vector observed_means(const Matrix& inputs);

// Fills each missing cell of `inputs` with its column's value of `fill` (d values; nothing
// when `fill` is empty). Throws ShapeError for another count.
void impute(Matrix& inputs, const Vector& fill);

// A copy of `inputs` with each missing cell given its column's mean over the observed values
// (0 for a column with none): the start of an algorithm that then treats them as missing.
Matrix mean_imputed(const Matrix& inputs);

}  // namespace radial
