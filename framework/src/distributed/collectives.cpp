// The single-process communicator, the sharded scope and the helpers over collectives()
// (radial/distributed/collectives.hpp). The MPI communicator is in mpi_collectives.cpp.
#include "radial/distributed/collectives.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <typeinfo>

#include "radial/core/errors.hpp"
#include "radial/io/output_file.hpp"
#include "distributed_internal.hpp"

namespace radial {

Collectives::~Collectives() = default;

namespace {

class SingleProcess final : public Collectives {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(double*, std::size_t) override {}
  void sum(std::uint64_t*, std::size_t) override {}
  void max(double*, std::size_t) override {}
  void min(double*, std::size_t) override {}
  void broadcast(std::string&, int) override {}
  void broadcast(double*, std::size_t, int) override {}
  std::vector<std::string> all_gather(const std::string& bytes) override { return {bytes}; }
  void send(int, const std::string&) override {
    throw Error("collectives: send on a single-process communicator");
  }
  std::string receive(int) override {
    throw Error("collectives: receive on a single-process communicator");
  }
  [[noreturn]] void abort(int exit_code) override { std::exit(exit_code); }
};

// The communicator of collectives(): set by ShardedScope, read by every data pass.
std::atomic<Collectives*> current{nullptr};

}  // namespace

Collectives& single_process() {
  static SingleProcess instance;
  return instance;
}

bool built_with_mpi() { return detail::mpi_available(); }

Collectives& world() {
  static Collectives* instance = [] {
    if (!detail::launched_by_mpi()) return &single_process();
    if (!detail::mpi_available())
      throw InputError("started by an MPI launcher (mpirun), but this Radial was built without "
                       "MPI (CMake option RADIAL_WITH_MPI=OFF or Boost.MPI not found): each "
                       "rank would train alone on all rows");
    return detail::mpi_world();
  }();
  return *instance;
}

Collectives& collectives() {
  Collectives* c = current.load(std::memory_order_acquire);
  return c ? *c : single_process();
}

ShardedScope::ShardedScope(Collectives& comm) : saved_(current.exchange(&comm)) {}
ShardedScope::~ShardedScope() { current.store(saved_); }

int ShardLayout::owner(std::size_t row, std::size_t* local) const {
  std::size_t start = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (row < start + counts[r]) {
      if (local) *local = row - start;
      return int(r);
    }
    start += counts[r];
  }
  throw Error("collectives: row " + std::to_string(row) + " beyond the " +
              std::to_string(total) + " rows of the shards");
}

ShardLayout shard_layout(std::size_t local_rows) {
  Collectives& comm = collectives();
  ShardLayout layout;
  layout.counts.assign(std::size_t(comm.size()), 0);
  std::vector<std::uint64_t> counts(std::size_t(comm.size()), 0);
  counts[std::size_t(comm.rank())] = local_rows;
  comm.sum(counts.data(), counts.size());
  for (std::size_t r = 0; r < counts.size(); ++r) {
    layout.counts[r] = std::size_t(counts[r]);
    if (int(r) < comm.rank()) layout.first += layout.counts[r];
    layout.total += layout.counts[r];
  }
  return layout;
}

RowRange even_shard(std::size_t total, int rank, int ranks) {
  const std::size_t p = std::size_t(std::max(1, ranks)), r = std::size_t(rank);
  const std::size_t base = total / p, extra = total % p;
  RowRange range;
  range.first = r * base + std::min(r, extra);
  range.count = base + (r < extra ? 1 : 0);
  return range;
}

RowRange block_shard(std::size_t total, int rank, int ranks, std::size_t block_rows) {
  block_rows = std::max<std::size_t>(1, block_rows);
  const RowRange blocks = even_shard((total + block_rows - 1) / block_rows, rank, ranks);
  RowRange range;
  range.first = std::min(total, blocks.first * block_rows);
  range.count = std::min(total, (blocks.first + blocks.count) * block_rows) - range.first;
  return range;
}

namespace {

// The framework's error types by a one-letter tag, so the agreed exception keeps its type (and
// the CLI its exit code) on the ranks that did not fail.
char error_tag(const std::exception& e) {
  if (dynamic_cast<const PipelineError*>(&e)) return 'P';
  if (dynamic_cast<const DataError*>(&e)) return 'D';
  if (dynamic_cast<const ModelFileError*>(&e)) return 'M';
  if (dynamic_cast<const PluginError*>(&e)) return 'L';
  if (dynamic_cast<const ParameterError*>(&e)) return 'A';
  if (dynamic_cast<const ShapeError*>(&e)) return 'S';
  if (dynamic_cast<const OutputError*>(&e)) return 'O';
  if (dynamic_cast<const InputError*>(&e)) return 'I';
  if (dynamic_cast<const NumericalError*>(&e)) return 'N';
  return 'E';
}

[[noreturn]] void throw_tagged(char tag, const std::string& message) {
  switch (tag) {
    case 'P': throw PipelineError(message);
    case 'D': throw DataError(message);
    case 'M': throw ModelFileError(message);
    case 'L': throw PluginError(message);
    case 'A': throw ParameterError(message);
    case 'S': throw ShapeError(message);
    case 'O': throw OutputError(message, 0);
    case 'I': throw InputError(message);
    case 'N': throw NumericalError(message);
    default: throw Error(message);
  }
}

}  // namespace

void agreed(const std::function<void()>& step) {
  Collectives& comm = collectives();
  if (comm.size() == 1) {
    step();
    return;
  }
  std::string local;  // empty: no failure; else tag + message
  try {
    step();
  } catch (const std::exception& e) {
    local = std::string(1, error_tag(e)) + e.what();
  } catch (...) {
    local = "Eunknown exception";
  }
  const std::vector<std::string> all = comm.all_gather(local);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      throw_tagged(all[r][0], "rank " + std::to_string(r) + ": " + all[r].substr(1));
}

}  // namespace radial
