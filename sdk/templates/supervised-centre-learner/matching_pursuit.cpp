// Kernel matching pursuit on the pipeline's design matrix (matching_pursuit.hpp).
#include "matching_pursuit.hpp"

#include <string>
#include <vector>

#include <radial/distributed/collectives.hpp>
#include <radial/core/errors.hpp>
#include <radial/network/output_layer.hpp>

namespace matching_pursuit_plugin {

radial::OptionTable<MatchingPursuitOptions> matching_pursuit_table() {
  radial::OptionTable<MatchingPursuitOptions> t;
  // Declared the number of centres (ParamRole::CentreCount), which the trainer's selection reads.
  t.bind("count", &MatchingPursuitOptions::count, "number of centres M chosen")
      .at_least(1)
      .plays(radial::ParamRole::CentreCount);
  return t;
}

radial::Centres MatchingPursuitCentres::fit_on_basis(const radial::Dataset& train,
                                                     const radial::KernelPrior*,
                                                     radial::CandidateBasis& basis,
                                                     radial::FitContext& ctx) {
  if (radial::collectives().size() > 1)
    throw radial::InputError("centres matching-pursuit runs in one process (not under mpirun)");
  const std::size_t n = train.rows(), count = options_.count;
  if (n < count)
    throw radial::InputError("centres matching-pursuit: count = " + std::to_string(count) +
                             " but the training data have " + std::to_string(n) + " rows");
  // Every training row is a candidate; the basis sets their widths (its rule, its scale).
  radial::Centres candidates;
  candidates.means = train.inputs;
  const radial::Centres& placed = basis.place(candidates, ctx);
  // Phi = [phi(x_n; candidate k), 1], N x (N + 1): column k is what candidate k would add.
  const radial::Matrix phi = basis.design(train.inputs)->materialise();
  radial::Matrix residual = radial::targets_for(radial::Link::Identity, train);  // N x K
  const std::size_t k_out = residual.shape(1);

  std::vector<std::size_t> chosen;
  std::vector<bool> taken(n, false);
  for (std::size_t step = 0; step < count; ++step) {
    std::size_t best = n;
    double best_gain = -1;
    for (std::size_t k = 0; k < n; ++k) {
      if (taken[k]) continue;
      double gg = 0, gain = 0;
      for (std::size_t r = 0; r < n; ++r) gg += phi(r, k) * phi(r, k);
      if (!(gg > 0)) continue;
      for (std::size_t o = 0; o < k_out; ++o) {
        double gr = 0;
        for (std::size_t r = 0; r < n; ++r) gr += phi(r, k) * residual(r, o);
        gain += gr * gr / gg;
      }
      if (gain > best_gain) {
        best_gain = gain;
        best = k;
      }
    }
    if (best == n) break;
    taken[best] = true;
    chosen.push_back(best);
    double gg = 0;
    for (std::size_t r = 0; r < n; ++r) gg += phi(r, best) * phi(r, best);
    for (std::size_t o = 0; o < k_out; ++o) {
      double gr = 0;
      for (std::size_t r = 0; r < n; ++r) gr += phi(r, best) * residual(r, o);
      for (std::size_t r = 0; r < n; ++r) residual(r, o) -= gr / gg * phi(r, best);
    }
  }
  if (chosen.empty())
    throw radial::NumericalError("centres matching-pursuit: every column of the design is 0");
  double sse = 0;
  for (double e : residual) sse += e * e;
  ctx.report.iterations = chosen.size();
  ctx.report.final_error = sse / double(n);
  ctx.report.stop(radial::Termination::Converged,
                  std::to_string(chosen.size()) + " centres chosen by matching pursuit");
  return radial::select_centres(placed, chosen);  // the candidates' widths go with them
}

}  // namespace matching_pursuit_plugin
