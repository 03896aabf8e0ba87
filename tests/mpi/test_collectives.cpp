// The collectives seam under mpirun: rank-ordered sums (the same bits on every rank, equal to the
// left-to-right sum of the ranks' values), layouts, broadcast, gather, and agreed errors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/exec/parallel.hpp"

using namespace radial;

TEST_CASE("world is MPI's under mpirun and collectives() single-process outside a scope") {
  Collectives& w = world();
  REQUIRE(w.size() >= 1);
  REQUIRE(built_with_mpi());
  REQUIRE(collectives().size() == 1);
  ShardedScope scope(w);
  REQUIRE(collectives().size() == w.size());
  REQUIRE(collectives().rank() == w.rank());
}

TEST_CASE("sum adds in rank order and gives every rank the same bits") {
  ShardedScope scope(world());
  Collectives& c = collectives();
  const int p = c.size(), r = c.rank();
  // Values whose sum depends on the order: 1e16 then ones, per element.
  for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1000)}) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = (r == 0 ? 1e16 : 1.0) + double(i) * 0.1 * (r + 1);
    std::vector<double> mine = v;
    c.sum(v.data(), n);
    // The expected left-to-right sum, from every rank's values computed here.
    for (std::size_t i = 0; i < n; ++i) {
      double s = 1e16 + double(i) * 0.1;
      for (int q = 1; q < p; ++q) s = s + (1.0 + double(i) * 0.1 * (q + 1));
      REQUIRE(v[i] == s);
    }
    // Same bits on every rank: broadcast rank 0's and compare.
    std::vector<double> root = v;
    c.broadcast(root.data(), n, 0);
    REQUIRE(root == v);
    (void)mine;
  }
  std::vector<std::uint64_t> counts(5, std::uint64_t(r + 1));
  c.sum(counts.data(), counts.size());
  for (auto k : counts) REQUIRE(k == std::uint64_t(p) * std::uint64_t(p + 1) / 2);
  REQUIRE(max_over_ranks(double(r)) == double(p - 1));
  REQUIRE(min_over_ranks(double(r)) == 0.0);
}

TEST_CASE("shard layouts and even shards") {
  ShardedScope scope(world());
  Collectives& c = collectives();
  const int p = c.size(), r = c.rank();
  // Rank r holds r rows (rank 0 none): the uneven case.
  const ShardLayout layout = shard_layout(std::size_t(r));
  REQUIRE(layout.total == std::size_t(p) * std::size_t(p - 1) / 2);
  REQUIRE(layout.first == std::size_t(r) * std::size_t(r - 1 < 0 ? 0 : r - 1) / 2 + 0);
  std::size_t local = 99;
  if (layout.total > 0) {
    REQUIRE(layout.owner(0, &local) == 1);
    REQUIRE(local == 0);
  }
  std::size_t covered = 0;
  for (int q = 0; q < p; ++q) {
    const RowRange range = even_shard(10, q, p);
    REQUIRE(range.first == covered);
    covered += range.count;
  }
  REQUIRE(covered == 10);
}

TEST_CASE("broadcast and all_gather of bytes") {
  ShardedScope scope(world());
  Collectives& c = collectives();
  std::string s = c.rank() == 0 ? std::string("from rank 0\n\0binary", 19) : std::string();
  c.broadcast(s, 0);
  REQUIRE(s == std::string("from rank 0\n\0binary", 19));
  const auto all = c.all_gather(std::to_string(c.rank()));
  REQUIRE(int(all.size()) == c.size());
  for (int q = 0; q < c.size(); ++q) REQUIRE(all[std::size_t(q)] == std::to_string(q));
}

TEST_CASE("an error on one rank is thrown on every rank with its type and message") {
  ShardedScope scope(world());
  Collectives& c = collectives();
  const int failing = c.size() - 1;
  try {
    agreed([&] {
      if (c.rank() == failing) throw DataError("data.csv:7:3: 2 fields, expected 3");
    });
    FAIL("no exception");
  } catch (const DataError& e) {
    const std::string expected = c.size() > 1 ? "rank " + std::to_string(failing) + ": " : "";
    REQUIRE(std::string(e.what()) == expected + "data.csv:7:3: 2 fields, expected 3");
  }
  REQUIRE_NOTHROW(agreed([] {}));
}

TEST_CASE("block shards start at multiples of the block size and cover every row once") {
  for (std::size_t total : {std::size_t(0), std::size_t(1), std::size_t(1023), std::size_t(1024),
                            std::size_t(5000), std::size_t(10 * 1024 + 1)})
    for (int p = 1; p <= 4; ++p) {
      std::size_t covered = 0;
      for (int q = 0; q < p; ++q) {
        const RowRange r = block_shard(total, q, p, 1024);
        REQUIRE(r.first == covered);
        if (r.count > 0) REQUIRE(r.first % 1024 == 0);
        covered += r.count;
      }
      REQUIRE(covered == total);
    }
  // 5000 rows = 5 blocks over 2 ranks: 3 blocks and 2 (the last one short).
  REQUIRE(block_shard(5000, 0, 2, 1024).count == 3072);
  REQUIRE(block_shard(5000, 1, 2, 1024).first == 3072);
  REQUIRE(block_shard(5000, 1, 2, 1024).count == 1928);
}

TEST_CASE("ranks on one machine share its cores: threads = 0 means this rank's share") {
  // mpirun.sh starts every rank on this machine.
  const int p = world().size();
  REQUIRE(ranks_on_this_machine() == p);
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  REQUIRE(resolve_threads(0) == std::max(1, cores / p));
  REQUIRE(resolve_threads(3) == 3);
}
