#pragma once
// Ending a data pass over rows sharded across the ranks of collectives()
// (radial/distributed/collectives.hpp): a plain rank-ordered sum of the partials, the one-process
// block fold continued across ranks (bit for bit the single-process sum on block-aligned shards),
// and a pass run on the ranks in turn. Each carries a failure flag, so one rank's error stops every
// rank instead of a hang.

#include <exception>
#include <functional>
#include <vector>

namespace radial {

// Ends a data pass over rows sharded across the ranks of collectives()
// (radial/distributed/collectives.hpp). `partial` holds every partial result of this rank's pass
// (its ordered row-block reduction), packed into one buffer so that the pass costs one message; it
// is summed over the ranks in rank order, so every rank gets the same bits. `failure` is the
// exception of this rank's local pass (null when it succeeded): if any rank failed, every rank
// throws the error of the lowest failing rank instead, so that no rank waits in a later pass. With
// one rank it rethrows `failure` or leaves `partial` untouched. Call it from the calling thread, on
// every rank, including ranks without rows.
void sum_pass_over_ranks(std::vector<double>& partial, const std::exception_ptr& failure);

// The one-process fold over row blocks, continued across ranks: `records` holds this rank's
// per-block partials (`width` values each, blocks in row order) and the result is
//   ((0 + r_0) + r_1) + ...   over every rank's records, rank 0 first,
// elementwise, on every rank. When every rank's blocks are the global row blocks (its shard
// starts at a multiple of the block size), this is the very sum one process makes, bit for
// bit, whatever the number of ranks; it costs a chain of P - 1 messages of `width` values and
// a broadcast, and the memory of this rank's records. For passes whose results steer long
// iterations (the gradient of SCG and BFGS), where a difference in the last bit grows.
// Failures as sum_pass_over_ranks.
std::vector<double> fold_blocks_over_ranks(const std::vector<double>& records, std::size_t width,
                                           const std::exception_ptr& failure);

// A pass that accumulates into `state` (an accumulation that cannot be split into per-block
// partials, such as BLAS updates C += A^T A), run on the ranks in turn: rank r starts from the
// state rank r - 1 ended with (rank 0 from `state`), and every rank ends with the last rank's.
// With aligned shards (as above) this is one process's pass bit for bit; it runs the ranks one
// after another, so it is for passes made once per fit (starting weights). With one rank it is
// pass(state). Failures as sum_pass_over_ranks.
void chain_over_ranks(std::vector<double>& state,
                      const std::function<void(std::vector<double>&)>& pass);

}  // namespace radial
