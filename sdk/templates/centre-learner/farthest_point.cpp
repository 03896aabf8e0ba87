// Farthest-point centres (farthest_point.hpp).
#include "farthest_point.hpp"

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <radial/distributed/collectives.hpp>
#include <radial/core/errors.hpp>

namespace farthest_point_plugin {

radial::OptionTable<FarthestPointOptions> farthest_point_table() {
  radial::OptionTable<FarthestPointOptions> t;
  // Declared the number of centres (ParamRole::CentreCount), which the trainer's selection reads.
  t.bind("count", &FarthestPointOptions::count, "number of centres M")
      .at_least(1)
      .plays(radial::ParamRole::CentreCount);
  return t;
}

radial::Centres FarthestPointCentres::fit(const radial::Dataset& train, const radial::KernelPrior*,
                                          radial::FitContext& ctx) {
  if (radial::collectives().size() > 1)
    throw radial::InputError("farthest-point runs in one process: run without mpirun");
  const std::size_t n = train.rows(), d = train.features(), m = options_.count;
  if (n < m)
    throw radial::InputError("farthest-point: " + std::to_string(m) + " centres from " +
                             std::to_string(n) + " training rows; lower count");
  std::vector<std::size_t> chosen{std::uniform_int_distribution<std::size_t>(0, n - 1)(ctx.rng)};
  // Each row's squared distance to its nearest chosen centre, updated as centres are added.
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  while (true) {
    const double* c = &train.inputs(chosen.back(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      double r2 = 0;
      for (std::size_t a = 0; a < d; ++a) r2 += (train.inputs(i, a) - c[a]) * (train.inputs(i, a) - c[a]);
      nearest[i] = std::min(nearest[i], r2);
    }
    if (chosen.size() == m) break;
    const std::size_t far = std::size_t(std::max_element(nearest.begin(), nearest.end()) -
                                        nearest.begin());
    if (nearest[far] == 0.0)
      throw radial::InputError("farthest-point: the training rows hold fewer than " +
                               std::to_string(m) + " distinct points; lower count");
    chosen.push_back(far);
  }
  radial::Centres centres;
  centres.means = xt::empty<double>({m, d});
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) centres.means(j, a) = train.inputs(chosen[j], a);
  ctx.report.iterations = m;
  ctx.report.final_error = *std::max_element(nearest.begin(), nearest.end());  // covering radius^2
  ctx.report.stop(radial::Termination::Converged, "chose " + std::to_string(m) + " centres");
  return centres;
}

}  // namespace farthest_point_plugin
