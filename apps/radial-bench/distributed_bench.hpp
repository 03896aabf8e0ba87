#pragma once
// The distributed part of radial-bench: `radial train` under `mpirun -np P` (one thread per
// rank) on .npy data, against one rank; the speed-up of the data passes, the peak memory of
// each rank against its shard, and the values the rank-ordered sums carry per iteration against
// the communication model of docs/distributed.md, with the scaling it predicts for 64 ranks.

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace radial::bench {

struct DistributedSettings {
  std::vector<std::size_t> sizes{1'000'000, 10'000'000};  // N of the scaling runs
  std::vector<int> ranks{1, 2};                            // P of the scaling runs
  std::size_t kmeans_iterations = 20;                      // Lloyd iterations (tolerance 0)
  std::size_t gmm_iterations = 10;                         // EM iterations (tolerance 0)
  std::size_t irls_iterations = 4;                         // IRLS iterations (run to the cap)
  std::size_t traffic_rows = 20'000;                       // N of the per-iteration volume runs
  std::size_t repeats = 1;                                 // runs per point (median shown)
  std::filesystem::path radial;                            // the host, bin/radial
  std::filesystem::path make_data;                         // memory/make_data.py
  std::filesystem::path python = "/usr/bin/python3";
  std::filesystem::path traffic_lib;                       // mpi_traffic.cpp's library (PMPI)
  std::string mpirun = "mpirun";
  std::filesystem::path work;                              // data and reports (caller removes)
};

// Runs the scaling table and the communication table; prints to `out`, progress to stderr.
void distributed_bench(const DistributedSettings& settings, std::ostream& out);

}  // namespace radial::bench
