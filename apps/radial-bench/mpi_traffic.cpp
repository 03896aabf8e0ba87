// What an MPI process sends, counted through MPI's profiling interface (PMPI): loaded with
// LD_PRELOAD into each rank of `mpirun ... radial train` by the distributed part of
// radial-bench, it counts every collective and point-to-point call and, at MPI_Finalize,
// prints one line per rank to stderr:
//
//   mpi-traffic: rank R of P: S bytes sent in C calls (alltoall a, allgather g, ...)
//
// Bytes sent are this rank's payload to the other ranks under the plain algorithms: all-to-all
// and all-gather(v) send the rank's part to each of the P - 1 others, a broadcast's root sends
// P - 1 copies, an all-reduce moves 2 (P - 1) / P of the vector (ring), a gather's non-root ranks
// send their part. It measures volumes independently of Radial's own counters
// (RADIAL_COLLECTIVES_STATS counts only Collectives::sum).
#include <mpi.h>

#include <cstdint>
#include <cstdio>

namespace {

enum Op { Alltoall, Allgather, Allgatherv, Bcast, Allreduce, Gather, Send, Ops };
const char* const names[Ops] = {"alltoall", "allgather", "allgatherv", "bcast",
                                "allreduce", "gather",    "send"};
std::uint64_t calls[Ops] = {}, bytes[Ops] = {};

std::uint64_t size_of(MPI_Datatype type) {
  int s = 0;
  PMPI_Type_size(type, &s);
  return std::uint64_t(s);
}

int ranks(MPI_Comm comm) {
  int p = 1;
  PMPI_Comm_size(comm, &p);
  return p;
}

int rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}

void count(Op op, std::uint64_t b) {
  ++calls[op];
  bytes[op] += b;
}

}  // namespace

extern "C" {

int MPI_Alltoall(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm) {
  count(Alltoall, std::uint64_t(sc) * size_of(st) * std::uint64_t(ranks(comm) - 1));
  return PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm) {
  count(Allgather, std::uint64_t(sc) * size_of(st) * std::uint64_t(ranks(comm) - 1));
  return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs,
                   const int* displs, MPI_Datatype rt, MPI_Comm comm) {
  count(Allgatherv, std::uint64_t(sc) * size_of(st) * std::uint64_t(ranks(comm) - 1));
  return PMPI_Allgatherv(sb, sc, st, rb, rcs, displs, rt, comm);
}

int MPI_Bcast(void* buffer, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  count(Bcast, rank(comm) == root ? std::uint64_t(n) * size_of(type) * std::uint64_t(ranks(comm) - 1) : 0);
  return PMPI_Bcast(buffer, n, type, root, comm);
}

int MPI_Allreduce(const void* sb, void* rb, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const int p = ranks(comm);
  count(Allreduce, 2 * std::uint64_t(n) * size_of(type) * std::uint64_t(p - 1) / std::uint64_t(p));
  return PMPI_Allreduce(sb, rb, n, type, op, comm);
}

int MPI_Gather(const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
               int root, MPI_Comm comm) {
  count(Gather, rank(comm) == root ? 0 : std::uint64_t(sc) * size_of(st));
  return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Gatherv(const void* sb, int sc, MPI_Datatype st, void* rb, const int* rcs,
                const int* displs, MPI_Datatype rt, int root, MPI_Comm comm) {
  count(Gather, rank(comm) == root ? 0 : std::uint64_t(sc) * size_of(st));
  return PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm);
}

int MPI_Send(const void* b, int n, MPI_Datatype type, int to, int tag, MPI_Comm comm) {
  count(Send, std::uint64_t(n) * size_of(type));
  return PMPI_Send(b, n, type, to, tag, comm);
}

int MPI_Isend(const void* b, int n, MPI_Datatype type, int to, int tag, MPI_Comm comm,
              MPI_Request* request) {
  count(Send, std::uint64_t(n) * size_of(type));
  return PMPI_Isend(b, n, type, to, tag, comm, request);
}

int MPI_Finalize() {
  std::uint64_t total = 0, total_calls = 0;
  for (int i = 0; i < Ops; ++i) {
    total += bytes[i];
    total_calls += calls[i];
  }
  char detail[512];
  int at = 0;
  for (int i = 0; i < Ops; ++i)
    at += std::snprintf(detail + at, sizeof detail - std::size_t(at), "%s%s %llu/%llu",
                        i ? ", " : "", names[i], (unsigned long long)calls[i],
                        (unsigned long long)bytes[i]);
  std::fprintf(stderr, "mpi-traffic: rank %d of %d: %llu bytes sent in %llu calls (calls/bytes: %s)\n",
               rank(MPI_COMM_WORLD), ranks(MPI_COMM_WORLD), (unsigned long long)total,
               (unsigned long long)total_calls, detail);
  return PMPI_Finalize();
}

}  // extern "C"
