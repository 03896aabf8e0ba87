// k-means on a row sample, then one Lloyd update on every row (radial/numerics/kmeans/kmeans.hpp).
#include <algorithm>

#include "radial/distributed/collectives.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"

namespace radial {

KMeansResult kmeans_on_sample(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng,
                              std::size_t& rows_used) {
  const std::size_t total = count_over_ranks(x.shape(0));
  const std::size_t target =
      std::max(options.sample_per_centre * options.count, kmeans_sample_floor);
  rows_used = total;
  KMeansOptions on = options;
  if (options.sample_per_centre > 0 && total > target && options.sample_iterations > 0)
    on.iterations = std::min(options.iterations, options.sample_iterations);
  // Below twice the sample, every row; above the sample's size still with its iteration cap
  // (HIGGS-like rows, N = 10^6, M = 2 x 10^4: uncapped, more than 10 minutes of Lloyd).
  if (options.sample_per_centre == 0 || total <= 2 * target) return kmeans(x, on, rng);

  const std::uint64_t seed = rng();
  const std::size_t first = collectives().size() > 1 ? shard_layout(x.shape(0)).first : 0;
  const std::vector<std::size_t> kept = sample_rows(x.shape(0), first, total, target, seed);
  Matrix sample = Matrix::from_shape({kept.size(), x.shape(1)});
  for (std::size_t r = 0; r < kept.size(); ++r)
    std::copy_n(&x(kept[r], 0), x.shape(1), &sample(r, 0));
  rows_used = count_over_ranks(kept.size());
  const KMeansResult on_sample = kmeans(sample, on, rng);

  KMeansOptions once = options;
  once.iterations = 1;
  KMeansResult out = kmeans_lloyd(x, on_sample.centres, once);
  out.iterations += on_sample.iterations;
  out.converged = on_sample.converged;
  out.inertia_settled = on_sample.inertia_settled;
  out.empty_cluster_repairs += on_sample.empty_cluster_repairs;
  return out;
}

}  // namespace radial
