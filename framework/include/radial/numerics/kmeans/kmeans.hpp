#pragma once
// Lloyd's k-means, the centre learner of the lecture notes and the initialiser of EM (gmm, prbf).
// Framework numerics so that every learner shares one implementation.
//
// Empty-cluster policy ("farthest-point"): a cluster that loses all its points is re-seeded at
// the training point farthest from its current centre (the point with the largest contribution
// to the error), and the repair is counted so the caller can report it.
//
// Sharded data (radial/distributed/collectives.hpp): inside a ShardedScope, x holds this rank's
// rows and these functions are collective. Seeds are drawn by global row index (k-means++ from the
// ranks' D^2 totals, every rank making the same draws), the sums, counts and inertia of each
// pass are summed over ranks in rank order, and a repair takes the farthest row over all ranks;
// the owner of a chosen row sends it. The centres, partition and iteration count are those of
// one process on all rows; `assignment` holds this rank's rows.

#include <cstddef>
#include <random>
#include <string>

#include "radial/core/types.hpp"

namespace radial {

struct KMeansOptions {
  std::size_t count = 8;
  std::string init = "kmeans++";  // "kmeans++" (Arthur & Vassilvitskii) | "random" (distinct rows)
  std::size_t iterations = 100;   // cap on Lloyd iterations
  double tolerance = 1e-4;        // stop when no centre moves more than this (relative to the data
                                  // scale); 0 runs exactly `iterations`
  // Also stop when an iteration lowers the inertia of the partition (each row's squared distance
  // to the centre it was assigned to) by at most this fraction of the previous one's; 0: never.
  double inertia_tolerance = 0;
  int threads = 1;
  // Lloyd on a seeded sample of about max(sample_per_centre x count, kmeans_sample_floor)
  // rows when the data have more than twice that many, then one Lloyd update on every row
  // (centres, partition and spreads of all rows): the cost of an iteration stops growing with
  // N. 0: every row. Read by the kmeans centre learner (kmeans_on_sample), not by kmeans().
  std::size_t sample_per_centre = 0;
  // The cap on Lloyd iterations on that sample (0: `iterations`), also on every row when they
  // are fewer than twice the sample but more than it. Late iterations on a sample
  // settle rows flipping between neighbouring small clusters: at 32 rows a centre, 10,000
  // centres, inertia 0.16% above the fixed point after 20 iterations, reached after 86. FAISS
  // runs 25 on its samples (Johnson, Douze & Jegou 2019).
  std::size_t sample_iterations = 0;
};

// The fewest rows k-means on a sample iterates on: below 2 x this many rows, and for the few
// centres of the papers' networks, every row is used (Skin's 196,045 rows with 64 centres).
inline constexpr std::size_t kmeans_sample_floor = 200000;

// k-means++ seeding on more than 2 x max(kmeans_seeding_per_centre x count,
// kmeans_seeding_floor) rows draws its centres from a seeded sample of that many rows (one draw
// of rng seeds it); fewer rows are all used.
inline constexpr std::size_t kmeans_seeding_per_centre = 4;
inline constexpr std::size_t kmeans_seeding_floor = 65536;

struct KMeansResult {
  Matrix centres;                 // count x d
  Labels assignment;              // N, nearest centre of each row after the last update
  Vector cluster_sizes;           // count
  Vector cluster_spread;          // count, mean squared distance of members to their centre
  double inertia = 0;             // sum of squared distances to the nearest centre
  std::size_t iterations = 0;
  bool converged = false;       // stopped by the centres' movement or the inertia's
  bool inertia_settled = false;  // ... by the inertia's (KMeansOptions::inertia_tolerance)
  std::size_t empty_cluster_repairs = 0;
};

// Initial centres by the named rule (k-means++ uses `threads`; the centres never depend on it).
// Throws InputError when count > rows.
Matrix kmeans_initial_centres(const Matrix& x, std::size_t count, const std::string& init,
                              std::mt19937_64& rng, int threads = 1);

// Lloyd iterations from given initial centres (for comparisons from the same start).
KMeansResult kmeans_lloyd(const Matrix& x, Matrix centres, const KMeansOptions& options);

// Initialisation + Lloyd.
KMeansResult kmeans(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng);

// kmeans() on the seeded row sample options.sample_per_centre asks for (every row when it is 0
// or the data are small), then one Lloyd update on every row of x. `rows_used` is set to the
// rows over all ranks the iterations ran on. The seed of the sample is one draw of rng, made only
// when a sample is taken. Collective as kmeans().
KMeansResult kmeans_on_sample(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng,
                              std::size_t& rows_used);

}  // namespace radial
