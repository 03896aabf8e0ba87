#pragma once
// Rows of data sharded over the ranks of collectives() (radial/distributed/collectives.hpp), picked
// by their global row index, and the per-rank facts the numerics' choices need. Every function here
// is collective: all ranks call it in the same order, ranks with zero rows included. With one rank
// they copy locally and send nothing.
//
// Used wherever a learner picks data rows (k-means seeds and repairs, the EM reseed, the K-d
// tree's split sample, random subsets): the owner of a chosen row sends its exact bits, so every
// rank continues from the same values as one process on all rows would.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/types.hpp"

namespace radial {

// The rows `rows` (global indices, any order, repeats allowed) of the data whose local shard is
// `x`, on every rank, in the order given. `layout` = shard_layout(x.shape(0)). One all-gather.
Matrix gather_rows(const Matrix& x, const ShardLayout& layout,
                   const std::vector<std::size_t>& rows);

// Every rank's value of `value`, indexed by rank (exact: a rank-ordered sum of zeros and one
// value per slot).
std::vector<double> per_rank(double value);

// A candidate row proposed by each rank for a global choice: the best `key` wins, ties by the
// lowest global row. `row` is the global index; ranks without a candidate pass has = false.
struct RowCandidate {
  bool has = false;
  double key = 0;
  std::size_t row = 0;
  std::uint64_t tag = 0;       // a fact of the row the caller sends along (e.g. its cluster)
  std::vector<double> values;  // the row's d features (sent along, so no second message)
};
// The winning candidate over ranks (largest key when `largest`, else smallest), on every rank;
// has = false when no rank proposed one. One all-gather.
RowCandidate best_candidate(const RowCandidate& mine, bool largest);

// Up to `count` rows of every rank, one best_candidate round each: the empty-cluster and
// empty-component reseeds of k-means and the mixture EM. `order` is this rank's local rows in
// the order it proposes them (best first); each round it proposes the next one that `eligible`
// still accepts (as candidate(i) makes it), and take(winner, local) gets the round's winner,
// with `local` this rank's row index when the winner is its own proposal (it then leaves the
// order), else npos. Stops early when no rank has a row to propose; returns the rounds taken.
std::size_t take_best_rows(std::size_t count, const std::vector<std::size_t>& order, bool largest,
                           const std::function<bool(std::size_t)>& eligible,
                           const std::function<RowCandidate(std::size_t)>& candidate,
                           const std::function<void(const RowCandidate&, std::size_t)>& take);

// The population variance of each column over every rank's rows (`rows` of them in all; x holds
// this rank's): the column means, then the squared deviations about them, divided by `rows`.
// Each sum runs over the rows left to right and continues from the previous rank's
// (chain_over_ranks), so the values are one process's to the last bit for any shard layout.
// For data-scaled floors and tolerances (kmeans' variance floor, PRBF's variance floors).
Vector column_variances(const Matrix& x, std::size_t rows);

// A seeded sample of about `target` of every rank's rows: this rank's local indices (ascending)
// of the rows kept, each of the `total` rows kept with probability target / total by a hash of
// (seed, its global index), so the same rows under any number of ranks and with no message; every
// row when total <= target. `first` is this rank's first global row (shard_layout().first).
// Each class is kept in proportion in expectation. For the selection's rows and k-means on a
// sample.
std::vector<std::size_t> sample_rows(std::size_t local_rows, std::size_t first,
                                     std::size_t total, std::size_t target, std::uint64_t seed);

}  // namespace radial
