// k-means seeding (radial/numerics/kmeans/kmeans.hpp, kmeans_initial_centres): init = "random", or
// k-means++ (Arthur & Vassilvitskii 2007: each new centre drawn with probability proportional to
// D(x)^2) over the rows of every rank.
#include "radial/numerics/kmeans/kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/exec/parallel.hpp"
#include "kmeans_assignment.hpp"

namespace radial {
namespace {

using kmeans_detail::check_data;
using kmeans_detail::LowerQuads;
using kmeans_detail::LowerRows;
using kmeans_detail::lower_rows_kernel;

// init = "random": `count` distinct rows drawn uniformly, by a partial Fisher-Yates shuffle of
// the global row indices 0..N-1 with the displaced entries kept in a map (no rank stores N
// indices).
Matrix random_distinct_rows(const Matrix& x, const ShardLayout& layout, std::size_t count,
                            std::mt19937_64& rng) {
  const std::size_t rows = layout.total;
  std::unordered_map<std::size_t, std::size_t> displaced;
  auto at = [&](std::size_t i) {
    const auto it = displaced.find(i);
    return it == displaced.end() ? i : it->second;
  };
  std::vector<std::size_t> picked(count);
  for (std::size_t j = 0; j < count; ++j) {
    std::uniform_int_distribution<std::size_t> pick(j, rows - 1);
    const std::size_t p = pick(rng);
    const std::size_t a = at(j), b = at(p);
    displaced[j] = b;
    displaced[p] = a;
    picked[j] = b;
  }
  return gather_rows(x, layout, picked);
}

// The state of k-means++ seeding (D^2 sampling, Arthur & Vassilvitskii 2007) on this rank's
// rows: D(x)^2, each row's squared distance to its closest chosen centre, and its sum per fixed
// row block (parallel_block_rows).
struct SeedingState {
  SeedingState(const Matrix& x, std::size_t count, int threads)
      : x(x), n(x.shape(0)), d(x.shape(1)), threads(threads),
        centres(xt::empty<double>({count, x.shape(1)})),
        blocks(row_block_count(n, parallel_block_rows)),
        d2(n, std::numeric_limits<double>::infinity()), block_sum(blocks, 0.0), chosen(n, 0),
        lower_quads(kmeans_detail::lower_quads_kernel()) {
    if (lower_quads) quads = kmeans_detail::to_quads(x);
  }

  const Matrix& x;
  std::size_t n, d;
  int threads;
  Matrix centres;
  std::size_t blocks;
  std::vector<double> d2, block_sum;
  std::vector<char> chosen;
  LowerQuads lower_quads;      // with `quads` (the rows by coordinate), when the CPU runs it
  std::vector<double> quads;
};

constexpr std::size_t seeding_parallel_values = std::size_t(1) << 16;

// D(x)^2 lowered to a new centre c, block by block (in parallel, elementwise), each block's sum
// taken in row order: the same values for any thread count.
void lower_d2(SeedingState& s, const double* c) {
  const LowerRows lower = lower_rows_kernel();
  // A pass of fewer than seeding_parallel_values values on one thread: waking a worker for each
  // of M such passes cost more than the pass (pb_vowels, 1,216 rows x 4, 279 centres: 8% of a
  // default fit). The blocks' sums are the same on any number of threads.
  const int threads = s.n * s.d < seeding_parallel_values ? 1 : s.threads;
  parallel_for_blocks(s.n, parallel_block_rows, threads, [&](std::size_t, const RowBlock& b) {
    s.block_sum[b.index] =
        s.lower_quads
            ? s.lower_quads(s.quads.data(), s.x.data(), s.d, c, b.first, b.count, s.d2.data())
            : lower(s.x.data(), s.d, c, b.first, b.count, s.d2.data());
  });
}

// Centre j = local row `local` of rank `owner`, sent to every rank; then D(x)^2 lowered to it.
void take_centre(SeedingState& s, Collectives& comm, std::size_t j, int owner,
                 std::size_t local) {
  double* c = s.centres.data() + j * s.d;
  if (comm.rank() == owner) {
    std::copy(s.x.data() + local * s.d, s.x.data() + (local + 1) * s.d, c);
    s.chosen[local] = 1;
  }
  comm.broadcast(c, s.d, owner);
  lower_d2(s, c);
}

// The rank holding position `u` of values laid out rank after rank, and `u`'s offset there.
int rank_holding(const std::vector<double>& per, double u, double& before) {
  before = 0;
  int last_positive = -1;
  for (std::size_t q = 0; q < per.size(); ++q)
    if (per[q] > 0) last_positive = int(q);
  for (std::size_t q = 0; q < per.size(); ++q) {
    if (!(per[q] > 0)) continue;
    // the last rank with rows takes a draw that rounding left just beyond the sum
    if (before + per[q] <= u && int(q) != last_positive) {
      before += per[q];
      continue;
    }
    return int(q);
  }
  return last_positive;
}

// On the rank that holds draw r (`cumulative` = the ranks' D^2 before it): the first row whose
// cumulative D(x)^2 exceeds r, walking the blocks' sums, then the rows of one block.
std::size_t row_of_d2_draw(const SeedingState& s, double r, double cumulative) {
  const std::size_t n = s.n;
  std::size_t next = n, last_positive = n;
  for (std::size_t b = 0; b < s.blocks && next == n; ++b) {
    if (s.block_sum[b] <= 0) continue;
    if (cumulative + s.block_sum[b] <= r && b + 1 < s.blocks) {
      cumulative += s.block_sum[b];
      continue;
    }
    const std::size_t begin = b * parallel_block_rows;
    const std::size_t end = std::min(n, begin + parallel_block_rows);
    for (std::size_t i = begin; i < end; ++i) {
      if (s.d2[i] <= 0) continue;
      last_positive = i;
      cumulative += s.d2[i];
      if (cumulative > r) {
        next = i;
        break;
      }
    }
  }
  if (next == n) next = last_positive;  // rounding left r just above the final sum
  return next;
}

// Every row coincides with a chosen centre: any unused row is as good as another (the u-th
// unused row in global row order).
void take_unused_row(SeedingState& s, Collectives& comm, std::size_t j, std::mt19937_64& rng) {
  std::vector<std::size_t> unused;
  for (std::size_t i = 0; i < s.n; ++i)
    if (!s.chosen[i]) unused.push_back(i);
  const std::vector<double> per = per_rank(double(unused.size()));
  double total_unused = 0;
  for (double u : per) total_unused += u;
  const auto u =
      std::uniform_int_distribution<std::size_t>(0, std::size_t(total_unused) - 1)(rng);
  double before = 0;
  const int owner = rank_holding(per, double(u), before);
  take_centre(s, comm, j, owner, comm.rank() == owner ? unused[u - std::size_t(before)] : 0);
}

// k-means++ centre j >= 1: a row drawn with probability proportional to D(x)^2, i.e. the first
// row whose cumulative weight exceeds a uniform draw in [0, total); a draw walks the ranks'
// totals, then the blocks of one rank, then the rows of one block.
void seed_next_centre(SeedingState& s, Collectives& comm, std::size_t j, std::mt19937_64& rng) {
  double mine = 0;
  for (double v : s.block_sum) mine += v;
  const std::vector<double> totals = per_rank(mine);
  double total = 0;
  for (double t : totals) total += t;
  if (!(total > 0)) {
    take_unused_row(s, comm, j, rng);
    return;
  }
  const double r = std::uniform_real_distribution<double>(0.0, total)(rng);
  double cumulative = 0;
  const int owner = rank_holding(totals, r, cumulative);
  const std::size_t next = comm.rank() == owner ? row_of_d2_draw(s, r, cumulative) : s.n;
  take_centre(s, comm, j, owner, next);
}

}  // namespace

Matrix kmeans_initial_centres(const Matrix& x, std::size_t count, const std::string& init,
                              std::mt19937_64& rng, int threads) {
  // Rows are chosen by global row index with draws every rank makes alike, and the owner of a
  // chosen row sends it: the centres are those of one process on all rows, for any rank count.
  const ShardLayout layout = shard_layout(x.dimension() == 2 ? x.shape(0) : 0);
  check_data(x, layout.total, count, "k-means initialisation");
  Collectives& comm = collectives();

  if (init == "random") return random_distinct_rows(x, layout, count, rng);
  if (init != "kmeans++") {
    throw InputError("k-means initialisation: unknown init '" + init +
                     "'; use \"kmeans++\" or \"random\"");
  }

  // Many rows: D^2 sampling on a seeded row sample (kmeans_seeding_rows). Each draw is a pass
  // over the rows, bound by memory bandwidth once they outgrow the cache (SUSY-like rows,
  // 320,000 x 18 with 10,000 centres: 40 s of seeding); Lloyd on all the rows then refines the
  // centres. scikit-learn's MiniBatchKMeans seeds on 3 x count rows the same way.
  const std::size_t seeding_target = std::max(kmeans_seeding_per_centre * count,
                                              kmeans_seeding_floor);
  if (layout.total > 2 * seeding_target) {
    const std::uint64_t seed = rng();
    const std::vector<std::size_t> kept =
        sample_rows(x.shape(0), layout.first, layout.total, seeding_target, seed);
    Matrix sample = Matrix::from_shape({kept.size(), x.shape(1)});
    for (std::size_t r = 0; r < kept.size(); ++r)
      std::copy_n(&x(kept[r], 0), x.shape(1), &sample(r, 0));
    if (count_over_ranks(kept.size()) >= count)
      return kmeans_initial_centres(sample, count, init, rng, threads);
  }

  // D^2 sampling over fixed row blocks (SeedingState): the first centre a uniform row, each
  // next one drawn by D(x)^2 (seed_next_centre); the draws do not depend on the thread count
  // and each rank makes them alike.
  SeedingState s(x, count, threads);
  {
    const std::size_t first = std::uniform_int_distribution<std::size_t>(0, layout.total - 1)(rng);
    std::size_t local = 0;
    const int owner = layout.owner(first, &local);
    take_centre(s, comm, 0, owner, local);
  }
  for (std::size_t j = 1; j < count; ++j) seed_next_centre(s, comm, j, rng);
  return std::move(s.centres);
}

}  // namespace radial
