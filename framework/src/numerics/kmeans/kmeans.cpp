// Lloyd's k-means (lecture notes, paper 001, "k-Means Algorithm": partition optimisation, then
// prototype optimisation = mean of each S_m, alternated) with k-means++ seeding (Arthur &
// Vassilvitskii 2007: each new centre drawn with probability proportional to D(x)^2).
//
// The assignment step is the hot loop: Hamerly's bounds skip the rows whose centre cannot have
// changed, and the other rows meet every centre through the GEMM identity
// ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c, one dgemm per gathered group of rows fused with the
// arg min, so that no N x M distance matrix is ever stored. State per row: a 4-byte label and
// two float bounds.
//
// This file holds Lloyd's iterations; the seeding is in kmeans_seeding.cpp, the assignment step
// with its kernels in kmeans_assignment.cpp.

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

using kmeans_detail::BoundedAssignment;
using kmeans_detail::CentreGeometry;
using kmeans_detail::check_data;
using kmeans_detail::measure_centres;
using kmeans_detail::squared_distance;

// Root mean feature variance over the rows of every rank (`rows` of them): the data scale the
// tolerance is relative to (column_variances: one process's bits for any shard layout).
double data_scale(const Matrix& x, std::size_t rows) {
  double total = 0;
  for (const double v : column_variances(x, rows)) total += v;
  return std::sqrt(total / double(x.shape(1)));
}

// Partition optimisation: each x_n to its closest centre. The first pass (no previous centres)
// meets every centre; later passes only the rows Hamerly's bounds cannot settle.
void assign_rows(BoundedAssignment& assignment, const Matrix& centres, const Matrix* previous,
                 double rel, int threads, CentreGeometry& geometry) {
  measure_centres(centres, previous, rel, threads, geometry);
  if (!previous)
    assignment.assign_all(centres, geometry);
  else
    assignment.assign_bounded(centres, geometry);
}

// Prototype optimisation, first half: the sum and count of each cluster's members, and with
// `centres` (those the rows were assigned to) the partition's inertia into *inertia. Sums per
// row block, added in block order, then over the ranks, so they depend on neither the thread
// count nor the rank count.
void sum_members(const Matrix& x, const BoundedAssignment& assignment, int threads, Matrix& sums,
                 std::vector<double>& counts, const Matrix* centres = nullptr,
                 double* inertia = nullptr) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = counts.size();
  struct Partial {
    Matrix sums;
    std::vector<double> counts;
    double inertia = 0;
  };
  std::fill(sums.begin(), sums.end(), 0.0);
  std::fill(counts.begin(), counts.end(), 0.0);
  double total = 0;
  ordered_reduce<Partial>(
      n, parallel_block_rows, threads,
      [&] { return Partial{xt::zeros<double>({m, d}), std::vector<double>(m, 0.0)}; },
      [&](const RowBlock& b, Partial& p) {
        std::fill(p.sums.begin(), p.sums.end(), 0.0);
        std::fill(p.counts.begin(), p.counts.end(), 0.0);
        p.inertia = 0;
        for (std::size_t i = b.first; i < b.first + b.count; ++i) {
          const std::size_t j = assignment.label(i);
          const double* row = x.data() + i * d;
          double* s = p.sums.data() + j * d;
          for (std::size_t k = 0; k < d; ++k) s[k] += row[k];
          p.counts[j] += 1;
          if (centres) p.inertia += squared_distance(row, centres->data() + j * d, d);
        }
      },
      [&](const RowBlock&, Partial& p) {
        for (std::size_t i = 0; i < m * d; ++i) sums.data()[i] += p.sums.data()[i];
        for (std::size_t j = 0; j < m; ++j) counts[j] += p.counts[j];
        total += p.inertia;
      });
  if (collectives().size() > 1) {
    std::vector<double> packed(sums.begin(), sums.end());
    packed.insert(packed.end(), counts.begin(), counts.end());
    packed.push_back(total);
    sum_over_ranks(packed);
    std::copy(packed.begin(), packed.begin() + std::ptrdiff_t(m * d), sums.begin());
    std::copy(packed.begin() + std::ptrdiff_t(m * d), packed.end() - 1, counts.begin());
    total = packed.back();
  }
  if (inertia) *inertia = total;
}

// Empty-cluster policy (farthest point): re-seed each empty cluster at the row that contributes
// most to the error, taken from a cluster that keeps at least one member: the farthest such row
// over all ranks (ties: the lowest global row), sent by its owner. Moves the row between the
// sums and counts; returns the number of repairs.
std::size_t repair_empty_clusters(const Matrix& x, const Matrix& centres, const ShardLayout& layout,
                                  BoundedAssignment& assignment, Matrix& sums,
                                  std::vector<double>& counts) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = counts.size();
  std::vector<double> dist2(n);
  for (std::size_t i = 0; i < n; ++i)
    dist2[i] = squared_distance(x.data() + i * d, centres.data() + assignment.label(i) * d, d);
  std::vector<std::size_t> by_distance(n);
  std::iota(by_distance.begin(), by_distance.end(), std::size_t(0));
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [&](std::size_t a, std::size_t b) { return dist2[a] > dist2[b]; });
  std::vector<std::size_t> empty;
  for (std::size_t j = 0; j < m; ++j)
    if (counts[j] == 0) empty.push_back(j);
  // A row whose cluster has fewer than 2 members never becomes eligible again (clusters only
  // lose members here), so each rank walks its order once.
  std::size_t repairs = 0;
  const std::size_t taken = take_best_rows(
      empty.size(), by_distance, /*largest=*/true,
      [&](std::size_t i) { return counts[assignment.label(i)] >= 2; },
      [&](std::size_t i) {
        RowCandidate mine;
        mine.has = true;
        mine.key = dist2[i];
        mine.row = layout.first + i;
        mine.tag = assignment.label(i);
        mine.values.assign(x.data() + i * d, x.data() + (i + 1) * d);
        return mine;
      },
      [&](const RowCandidate& far, std::size_t local) {
        const std::size_t j = empty[repairs++];
        const auto donor = std::size_t(far.tag);
        for (std::size_t k = 0; k < d; ++k) {
          sums(donor, k) -= far.values[k];
          sums(j, k) = far.values[k];
        }
        counts[donor] -= 1;
        counts[j] = 1;
        if (local != std::size_t(-1)) assignment.reassign(local, std::uint32_t(j));
      });
  if (taken < empty.size())
    throw Error("k-means: no row left to re-seed an empty cluster");  // n >= m
  return repairs;
}

// Prototype optimisation, second half: each centre the mean of its members. Returns the largest
// squared move of a centre, which the convergence test reads.
double move_to_means(const Matrix& sums, const std::vector<double>& counts, Matrix& centres) {
  const std::size_t m = centres.shape(0), d = centres.shape(1);
  double max_shift2 = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const double inv = 1.0 / counts[j];
    double shift2 = 0;
    for (std::size_t k = 0; k < d; ++k) {
      const double updated = sums(j, k) * inv;
      const double delta = updated - centres(j, k);
      shift2 += delta * delta;
      centres(j, k) = updated;
    }
    max_shift2 = std::max(max_shift2, shift2);
  }
  return max_shift2;
}

// The partition's labels, sizes, spreads and error (inertia), by direct differences (the GEMM
// identity loses digits to cancellation), summed over the ranks.
void summarise_partition(const Matrix& x, const Matrix& centres,
                         const BoundedAssignment& assignment, KMeansResult& result) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = centres.shape(0);
  result.cluster_sizes = xt::zeros<double>({m});
  result.cluster_spread = xt::zeros<double>({m});
  result.assignment = Labels::from_shape({n});
  result.inertia = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = assignment.label(i);
    const double e = squared_distance(x.data() + i * d, centres.data() + j * d, d);
    result.assignment(i) = std::int64_t(j);
    result.inertia += e;
    result.cluster_spread(j) += e;
    result.cluster_sizes(j) += 1;
  }
  if (collectives().size() > 1) {
    std::vector<double> packed(result.cluster_spread.begin(), result.cluster_spread.end());
    packed.insert(packed.end(), result.cluster_sizes.begin(), result.cluster_sizes.end());
    packed.push_back(result.inertia);
    sum_over_ranks(packed);
    std::copy(packed.begin(), packed.begin() + std::ptrdiff_t(m), result.cluster_spread.begin());
    std::copy(packed.begin() + std::ptrdiff_t(m), packed.begin() + std::ptrdiff_t(2 * m),
              result.cluster_sizes.begin());
    result.inertia = packed.back();
  }
  for (std::size_t j = 0; j < m; ++j)
    if (result.cluster_sizes(j) > 0) result.cluster_spread(j) /= result.cluster_sizes(j);
}

}  // namespace

KMeansResult kmeans_lloyd(const Matrix& x, Matrix centres, const KMeansOptions& options) {
  // Every pass sums its per-block partials locally, then over the ranks of collectives(): the
  // same centres, partition and decisions on every rank, as one process on all rows.
  const ShardLayout layout = shard_layout(x.dimension() == 2 ? x.shape(0) : 0);
  const std::size_t d = x.shape(1), m = centres.shape(0);
  check_data(x, layout.total, m, "k-means");
  if (centres.shape(1) != d) {
    std::ostringstream msg;
    msg << "k-means: initial centres have " << centres.shape(1) << " columns but the data have "
        << d << " features";
    throw ShapeError(msg.str());
  }

  const SingleThreadedBlasScope blas;
  const double rel = 4.0 * double(d + 4) * std::numeric_limits<double>::epsilon();
  BoundedAssignment assignment(x, options.threads);
  CentreGeometry geometry;
  const double threshold =
      options.tolerance > 0 ? options.tolerance * data_scale(x, layout.total) : 0.0;
  Matrix sums = xt::empty<double>({m, d});
  std::vector<double> counts(m);
  Matrix previous;

  KMeansResult result;
  result.converged = false;
  const bool by_inertia = options.inertia_tolerance > 0;
  double last_inertia = std::numeric_limits<double>::infinity();
  for (std::size_t it = 0; it < options.iterations; ++it) {
    assign_rows(assignment, centres, it == 0 ? nullptr : &previous, rel, options.threads,
                geometry);
    // Lloyd's objective after this assignment step (rows to the centres they were assigned
    // to), which no step raises.
    double inertia = 0;
    sum_members(x, assignment, options.threads, sums, counts, by_inertia ? &centres : nullptr,
                by_inertia ? &inertia : nullptr);
    bool repaired = false;
    if (std::find(counts.begin(), counts.end(), 0.0) != counts.end()) {
      result.empty_cluster_repairs +=
          repair_empty_clusters(x, centres, layout, assignment, sums, counts);
      repaired = true;
    }
    previous = centres;
    const double max_shift2 = move_to_means(sums, counts, centres);
    result.iterations = it + 1;
    // Converged: no centre moved more than tolerance * data scale. With tolerance 0 the loop
    // never stops early, and converged says whether the last iteration was a fixed point.
    result.converged = std::sqrt(max_shift2) <= threshold;
    if (options.tolerance > 0 && result.converged) break;
    // Settled: this assignment lowered the inertia by at most inertia_tolerance of the last
    // (not after a repair, which moved a row by hand). The centres are then this partition's
    // means, as after any iteration.
    if (by_inertia && !repaired && std::isfinite(last_inertia) &&
        last_inertia - inertia <= options.inertia_tolerance * last_inertia) {
      result.converged = result.inertia_settled = true;
      break;
    }
    last_inertia = repaired ? std::numeric_limits<double>::infinity() : inertia;
  }

  // Final partition for the final centres.
  assign_rows(assignment, centres, result.iterations == 0 ? nullptr : &previous, rel,
              options.threads, geometry);
  assignment.release_bounds();
  summarise_partition(x, centres, assignment, result);
  result.centres = std::move(centres);
  return result;
}

KMeansResult kmeans(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng) {
  return kmeans_lloyd(x, kmeans_initial_centres(x, options.count, options.init, rng, options.threads),
                      options);
}

}  // namespace radial
