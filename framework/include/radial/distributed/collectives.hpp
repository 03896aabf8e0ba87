#pragma once
// Collectives for data-parallel training: the one seam between Radial and MPI.
//
// Under `mpirun -np P` each rank holds a contiguous shard of the rows. Every data pass computes
// its local partial result (the ordered row-block reduction of radial/exec/parallel.hpp over the
// rank's rows) and then sums the partials over ranks with Collectives::sum, which adds them in
// rank order 0, 1, ..., P-1 on every rank: every rank gets the same bits, and a rerun with the
// same P gives the same bits. Everything computed from the sums (M x M solves, M-steps, line
// searches) then runs on every rank on identical values, so the ranks stay in step without
// further messages.
//
// Which communicator a pass uses: collectives(), the communicator the current data is sharded
// over. It is the single-process one (rank 0 of 1, every operation a no-op or a copy) unless a
// ShardedScope is active, so code that is not distributed pays nothing and runs as one process.
// The CLI opens a ShardedScope over world() for `radial train/predict/evaluate` under mpirun.
//
// Only framework/src/distributed/mpi_collectives.cpp includes MPI headers (built when the CMake
// option RADIAL_WITH_MPI is on and Boost.MPI is found). Every call here is collective: all ranks
// of the communicator make the same calls in the same order, from one thread per rank.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace radial {

class Collectives {
 public:
  virtual ~Collectives();

  virtual int rank() const = 0;
  virtual int size() const = 0;

  // Elementwise sum of `n` values over ranks, added in rank order (((v_0 + v_1) + v_2) + ...),
  // the result on every rank.
  virtual void sum(double* values, std::size_t n) = 0;
  virtual void sum(std::uint64_t* values, std::size_t n) = 0;
  // Elementwise maximum and minimum over ranks, the result on every rank.
  virtual void max(double* values, std::size_t n) = 0;
  virtual void min(double* values, std::size_t n) = 0;

  // `bytes` of rank `root` copied to every rank.
  virtual void broadcast(std::string& bytes, int root) = 0;
  virtual void broadcast(double* values, std::size_t n, int root) = 0;

  // Every rank's `bytes`, indexed by rank, on every rank.
  virtual std::vector<std::string> all_gather(const std::string& bytes) = 0;

  // Point to point (rank 0 collecting rows in input order): blocking send and receive.
  virtual void send(int to, const std::string& bytes) = 0;
  virtual std::string receive(int from) = 0;

  // Ends every rank of the job now with `exit_code` (a failure that some ranks cannot know of;
  // the alternative is a hang). The single-process implementation calls std::exit.
  [[noreturn]] virtual void abort(int exit_code) = 0;

  // What sum() has carried so far on this rank (for the communication model in
  // docs/distributed.md): calls and values summed. With RADIAL_COLLECTIVES_STATS=1 in the
  // environment, rank 0 of the MPI world prints its figures to stderr at exit.
  struct Traffic {
    std::uint64_t sums = 0;    // calls of sum()
    std::uint64_t values = 0;  // values summed, over all calls (8 bytes each)
  };
  Traffic traffic() const { return traffic_; }

 protected:
  Traffic traffic_;
};

// The single-process communicator (rank 0 of 1).
Collectives& single_process();

// The job's communicator: MPI's world when this process was started by mpirun (or another MPI
// launcher) and Radial was built with MPI, else single_process(). The first call initialises
// MPI; MPI is finalised at exit.
Collectives& world();

// True when Radial was built with MPI (RADIAL_WITH_MPI).
bool built_with_mpi();

// How many ranks share this machine: ranks_on_this_machine (radial/exec/parallel.hpp).

// The communicator the current data is sharded over (see above).
Collectives& collectives();

// Makes `comm` the communicator of collectives() for the lifetime of the object (nests).
class ShardedScope {
 public:
  explicit ShardedScope(Collectives& comm);
  ~ShardedScope();
  ShardedScope(const ShardedScope&) = delete;
  ShardedScope& operator=(const ShardedScope&) = delete;

 private:
  Collectives* saved_;
};

// ---- Helpers over collectives() for data passes ----------------------------------------------

// Sums a contiguous container of doubles (Vector, Matrix, Tensor3, std::vector<double>) or a
// scalar over the ranks of collectives().
template <class Container>
void sum_over_ranks(Container& values) {
  collectives().sum(values.data(), values.size());
}
inline double sum_over_ranks(double value) {
  collectives().sum(&value, 1);
  return value;
}
inline std::uint64_t count_over_ranks(std::uint64_t value) {
  collectives().sum(&value, 1);
  return value;
}
inline double max_over_ranks(double value) {
  collectives().max(&value, 1);
  return value;
}
inline double min_over_ranks(double value) {
  collectives().min(&value, 1);
  return value;
}

// Where this rank's `local_rows` rows sit among all ranks' rows (ranks in order).
struct ShardLayout {
  std::size_t total = 0;             // rows over all ranks
  std::size_t first = 0;             // global index of this rank's first row
  std::vector<std::size_t> counts;   // rows of each rank
  // The rank holding global row `row` (< total), and its local index there.
  int owner(std::size_t row, std::size_t* local = nullptr) const;
};
ShardLayout shard_layout(std::size_t local_rows);

// The contiguous range of `total` rows that rank `rank` of `ranks` holds when rows are split
// evenly (the first total % ranks ranks hold one more).
struct RowRange {
  std::size_t first = 0, count = 0;
};
RowRange even_shard(std::size_t total, int rank, int ranks);

// The rows rank `rank` of `ranks` holds when whole blocks of `block_rows` rows are split evenly
// (even_shard over blocks): every shard starts at a multiple of block_rows, so each rank's row
// blocks are exactly blocks of the single-process run. The data readers shard this way with the
// framework's block size (radial/exec/parallel.hpp), so a pass folded over ranks in block order
// reproduces the single-process sum bit for bit. A file of fewer than P blocks leaves the last
// ranks without rows.
RowRange block_shard(std::size_t total, int rank, int ranks, std::size_t block_rows);

// Runs `step` on every rank and agrees on its failure: when `step` throws on any rank, every
// rank throws the exception of the lowest failing rank (same type among the framework's error
// types, message prefixed "rank R: " when P > 1). For a step where one rank may fail alone (its
// shard of a data file), so that every rank stops together instead of hanging in the next pass.
// With one rank it is just step().
void agreed(const std::function<void()>& step);

}  // namespace radial
