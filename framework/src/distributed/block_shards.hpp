#pragma once
// Moving shards onto block boundaries. A CSV file is cut by bytes, so its shards start at
// arbitrary rows; afterwards the rows are passed between neighbouring ranks so that rank r holds
// block_shard(N, r, P, parallel_block_rows) (radial/distributed/collectives.hpp), the layout of
// .npy shards: every rank's row blocks are then the single-process run's blocks.
#include "radial/core/dataset.hpp"
#include "radial/core/types.hpp"

namespace radial::data {

// Collective. `inputs` (local rows x d, d the same on every rank) and, when given, the per-row
// `classes` or `values` move together; global row order is kept.
void move_to_block_shards(Matrix& inputs, Labels* classes, Vector* values);

// The same for a whole Dataset (its classes or values by task).
void move_to_block_shards(Dataset& data);

}  // namespace radial::data
