#pragma once
// The design matrix Phi = [phi(x_n; c_1..c_M), 1] (N x (M+1), bias column last, as NETLAB),
// produced block by block so that it never has to fit in memory. Blocks are built by the GEMM
// identity for distances fused with the basis map while the block is in cache.

#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <vector>

#include "radial/basis.hpp"
#include "radial/centres.hpp"
#include "radial/types.hpp"

namespace radial {

class DesignMatrix {
 public:
  // `inputs`, `centres` and `basis` must outlive the DesignMatrix. With log_domain the blocks
  // hold log phi (basis.has_log_map() must be true) and no bias column: the design of a
  // prediction rule whose log_domain() is true (radial/prediction_rule.hpp).
  // Phi is kept in memory after the first pass when it needs at most `cache_bytes`.
  DesignMatrix(const Matrix& inputs, const Centres& centres, const Basis& basis,
               bool log_domain = false, std::size_t cache_bytes = std::size_t(256) << 20,
               std::size_t block_rows = 1024);
  ~DesignMatrix();
  DesignMatrix(const DesignMatrix&) = delete;
  DesignMatrix& operator=(const DesignMatrix&) = delete;

  std::size_t rows() const;
  std::size_t cols() const;        // M + 1 (M in the log domain)
  std::size_t block_rows() const;
  std::size_t block_count() const;

  // Row-block parallelism (radial/parallel.hpp): blocks are computed by up to `threads`
  // workers (0 = all cores) while visit() still sees them one at a time in row order, so
  // results never depend on the setting. Default 1.
  void set_threads(int threads);
  int threads() const;

  // Calls visit(first_row, block) for consecutive blocks, in order, one call at a time (from
  // any of the workers when threads() > 1). `block` is (rows in block) x cols() and valid only
  // during the call.
  void for_each_block(const std::function<void(std::size_t, const Matrix&)>& visit) const;

  // Ordered reduction over the blocks: work(worker, first_row, block) runs on up to threads()
  // workers at once, then combine(worker, first_row) runs for the blocks in row order, one at
  // a time, before that worker's next block. worker < worker_count(rows(), block_rows(),
  // threads()). Per-worker partials combined in block order give the same bits for any
  // thread count.
  void reduce_blocks(
      const std::function<void(std::size_t worker, std::size_t first, const Matrix&)>& work,
      const std::function<void(std::size_t worker, std::size_t first)>& combine) const;

  // The whole N x cols() matrix (convenient for small problems and tests).
  Matrix materialise() const;

  // Computes one block (rows [first, first+count)) into `out`, resized as needed.
  void compute_block(std::size_t first, std::size_t count, Matrix& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Ends a data pass over rows sharded across the ranks of collectives() (radial/collectives.hpp).
// `partial` holds every partial result of this rank's pass (its ordered row-block reduction),
// packed into one buffer so that the pass costs one message; it is summed over the ranks in rank
// order, so every rank gets the same bits. `failure` is the exception of this rank's local pass
// (null when it succeeded): if any rank failed, every rank throws the error of the lowest
// failing rank instead, so that no rank waits in a later pass. With one rank it rethrows
// `failure` or leaves `partial` untouched. Call it from the calling thread, on every rank,
// including ranks without rows.
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
