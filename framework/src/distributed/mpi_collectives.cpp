// The MPI communicator (Boost.MPI over Open MPI): the only file of Radial that includes MPI.
//
// sum() must give every rank the same bits and add in rank order, which MPI_Allreduce does not
// promise (its algorithm, and so its association, depends on the message size and the
// library). So it is a reduce-scatter and an all-gather written out: the values are cut into P
// equal segments, MPI_Alltoall brings segment s of every rank to rank s, rank s adds its P
// copies in rank order, and MPI_Allgather returns every summed segment to every rank. That is
// the bandwidth of a ring all-reduce, 2 (P - 1) / P of the values per rank, with a fixed order.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <memory>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include "radial/core/errors.hpp"
#include "distributed_internal.hpp"

namespace radial::detail {
namespace {

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype mpi_type<std::uint64_t>() { return MPI_UINT64_T; }

void check(int code, const char* what) {
  if (code != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed");
}

class MpiWorld final : public Collectives {
 public:
  MpiWorld() : environment_(boost::mpi::threading::funneled, /*abort_on_exception=*/true) {}

  int rank() const override { return world_.rank(); }
  int size() const override { return world_.size(); }

  ~MpiWorld() override {
    const char* stats = std::getenv("RADIAL_COLLECTIVES_STATS");
    if (stats && std::string(stats) == "1" && rank() == 0)
      std::fprintf(stderr, "radial: collectives on rank 0 of %d: %llu sums, %llu values (%llu bytes)\n",
                   size(), (unsigned long long)traffic_.sums, (unsigned long long)traffic_.values,
                   (unsigned long long)(8 * traffic_.values));
  }

  void sum(double* values, std::size_t n) override { count(n); ordered_sum(values, n); }
  void sum(std::uint64_t* values, std::size_t n) override { count(n); ordered_sum(values, n); }
  void max(double* values, std::size_t n) override {
    if (size() > 1 && n > 0)
      check(MPI_Allreduce(MPI_IN_PLACE, values, int(n), MPI_DOUBLE, MPI_MAX, world_), "max");
  }
  void min(double* values, std::size_t n) override {
    if (size() > 1 && n > 0)
      check(MPI_Allreduce(MPI_IN_PLACE, values, int(n), MPI_DOUBLE, MPI_MIN, world_), "min");
  }

  void broadcast(std::string& bytes, int root) override {
    if (size() > 1) boost::mpi::broadcast(world_, bytes, root);
  }
  void broadcast(double* values, std::size_t n, int root) override {
    if (size() > 1 && n > 0) check(MPI_Bcast(values, int(n), MPI_DOUBLE, root, world_), "broadcast");
  }

  std::vector<std::string> all_gather(const std::string& bytes) override {
    std::vector<std::string> out;
    boost::mpi::all_gather(world_, bytes, out);
    return out;
  }

  void send(int to, const std::string& bytes) override { world_.send(to, 0, bytes); }
  std::string receive(int from) override {
    std::string bytes;
    world_.recv(from, 0, bytes);
    return bytes;
  }

  [[noreturn]] void abort(int exit_code) override {
    MPI_Abort(world_, exit_code);
    std::_Exit(exit_code);
  }

 private:
  void count(std::size_t n) {
    ++traffic_.sums;
    traffic_.values += n;
  }

  template <class T>
  void ordered_sum(T* values, std::size_t n) {
    const std::size_t p = std::size_t(size());
    if (p == 1 || n == 0) return;
    const std::size_t segment = (n + p - 1) / p;
    // MPI counts are int: large arrays go in pieces of at most 2^27 values per segment.
    constexpr std::size_t max_segment = std::size_t(1) << 27;
    if (segment > max_segment) {
      for (std::size_t start = 0; start < n; start += max_segment * p)
        ordered_sum(values + start, std::min(max_segment * p, n - start));
      return;
    }
    send_.assign(segment * p * sizeof(T), 0);
    receive_.resize(segment * p * sizeof(T));
    T* out = reinterpret_cast<T*>(send_.data());
    std::copy(values, values + n, out);
    T* in = reinterpret_cast<T*>(receive_.data());
    check(MPI_Alltoall(out, int(segment), mpi_type<T>(), in, int(segment), mpi_type<T>(), world_),
          "all-to-all");
    // in[r * segment + i] = element (rank() * segment + i) of rank r: add in rank order.
    std::vector<T> mine(segment);
    for (std::size_t i = 0; i < segment; ++i) {
      T s = in[i];
      for (std::size_t r = 1; r < p; ++r) s = s + in[r * segment + i];
      mine[i] = s;
    }
    check(MPI_Allgather(mine.data(), int(segment), mpi_type<T>(), out, int(segment),
                        mpi_type<T>(), world_),
          "all-gather");
    std::copy(out, out + n, values);
  }

  boost::mpi::environment environment_;
  boost::mpi::communicator world_;
  std::vector<unsigned char> send_, receive_;
};

}  // namespace

bool mpi_available() { return true; }

Collectives* mpi_world() {
  static std::unique_ptr<MpiWorld> world = std::make_unique<MpiWorld>();
  return world.get();
}

}  // namespace radial::detail
