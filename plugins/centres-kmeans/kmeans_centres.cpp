// k-means centres with spherical widths from the cluster spread (see kmeans_centres.hpp).
#include "kmeans_centres.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/distributed/sharded_rows.hpp"

namespace radial::plugins {

namespace {

// The mean of the columns' variances over every rank's rows (`rows` of them).
double mean_feature_variance(const Matrix& x, std::size_t rows) {
  const Vector var = column_variances(x, rows);
  double total = 0;
  for (std::size_t k = 0; k < var.size(); ++k) total += var(k);
  return total / double(var.size());
}

double nearest_other_centre2(const Matrix& means, std::size_t j) {
  const std::size_t m = means.shape(0), d = means.shape(1);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < m; ++i) {
    if (i == j) continue;
    double s = 0;
    for (std::size_t k = 0; k < d; ++k) s += std::pow(means(i, k) - means(j, k), 2);
    best = std::min(best, s);
  }
  return best;
}

}  // namespace

Centres KMeansCentres::fit(const Dataset& train, const KernelPrior*, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  // train holds this rank's rows when the data are sharded (radial/distributed/collectives.hpp).
  const std::size_t rows = std::size_t(count_over_ranks(train.rows())), d = train.features();
  KMeansOptions options = options_;
  if (options.inertia_tolerance < 0)
    options.inertia_tolerance = options.count == 0 ? auto_count_inertia : 0.0;
  if (options.count == 0) options.count = auto_centre_count(rows, centre_count_classes(train));
  if (options.count > rows) {
    std::ostringstream msg;
    msg << "count = " << options.count << " but the training data have only "
        << rows << " rows; set centres.count <= " << rows;
    throw InputError(msg.str());
  }
  options.threads = ctx.threads;
  // Missing cells ([data] missing = "em"): the clusters are found with them at their columns'
  // observed means; the network still integrates them out (radial/network/design_matrix.hpp).
  const bool missing = has_missing(train.inputs);
  const Matrix imputed = missing ? mean_imputed(train.inputs) : Matrix();
  const Matrix& x = missing ? imputed : train.inputs;
  std::size_t rows_used = rows;
  const KMeansResult result = kmeans_on_sample(x, options, ctx.rng, rows_used);
  const std::size_t m = result.centres.shape(0);

  Centres centres;
  centres.means = result.centres;
  centres.shape = Shape::Spherical;
  centres.variances = xt::zeros<double>({m});

  std::size_t small = 0, floored = 0;
  const double data_variance = mean_feature_variance(x, rows);
  const double floor = 1e-6 * (data_variance > 0 ? data_variance : 1.0);
  for (std::size_t j = 0; j < m; ++j) {
    double variance;
    if (result.cluster_sizes(j) >= 2) {
      variance = result.cluster_spread(j) / double(d);  // spherical ML variance
    } else {
      variance = m > 1 ? nearest_other_centre2(result.centres, j) : 0.0;
      ++small;
    }
    if (!(variance > floor)) {
      variance = floor;
      ++floored;
    }
    centres.variances(j) = variance;
  }

  if (result.empty_cluster_repairs > 0) {
    std::ostringstream msg;
    msg << result.empty_cluster_repairs
        << " empty cluster(s) re-seeded at the training point farthest from its centre";
    ctx.warn("empty-cluster", msg.str(),
             "centres.count (fewer centres) or centres.init = \"kmeans++\"");
  }
  if (small > 0) {
    std::ostringstream msg;
    msg << small << " of " << m
        << " clusters have fewer than 2 members; their variance is the squared distance to "
           "the nearest other centre";
    ctx.warn("small-cluster", msg.str(), "centres.count (fewer centres)");
  }
  if (floored > 0) {
    std::ostringstream msg;
    msg << floored << " of " << m << " variances were 0 (coincident points) and were set to "
        << floor << " (1e-6 x the mean feature variance)";
    ctx.warn("variance-floor", msg.str(), "centres.count (fewer centres)");
  }
  // On a sample, sample_iterations is a deliberate stop (radial/numerics/kmeans/kmeans.hpp), not a
  // shortfall to warn about.
  const bool sample_cap =
      rows > std::max(options.sample_per_centre * options.count, kmeans_sample_floor) &&
      options.sample_per_centre > 0 && options.sample_iterations > 0 &&
      options.sample_iterations < options.iterations;
  if (!result.converged && options.tolerance > 0 && !sample_cap) {
    std::ostringstream msg;
    msg << "k-means stopped after " << result.iterations
        << " iterations with centres still moving more than the tolerance";
    ctx.warn("max-iterations", msg.str(),
             "centres.iterations (more) or centres.tolerance (larger)");
  }

  ctx.report.iterations = result.iterations;
  {
    std::ostringstream how;
    if (result.inertia_settled)
      how << "iteration " << result.iterations << " lowered the inertia by at most "
          << options.inertia_tolerance << " of it (inertia_tolerance)"
          << (rows_used < rows ? " on the sample of " + std::to_string(rows_used) +
                                     " rows, then one update on every row"
                               : std::string());
    else if (result.converged)
      how << "the centres moved at most the tolerance " << options.tolerance
          << " (relative to the data's spread) at iteration " << result.iterations;
    else if (sample_cap && rows_used < rows)
      how << "the cap of " << options.sample_iterations << " iterations on the sample of "
          << rows_used << " rows (sample_iterations), then one update on every row";
    else if (sample_cap)
      how << "the cap of " << options.sample_iterations << " iterations (sample_iterations: "
          << rows << " rows are more than the sample of "
          << options.sample_per_centre * options.count << " a sample would take)";
    else
      how << "the centres still moved more than the tolerance " << options.tolerance
          << " after the cap of " << result.iterations << " iterations";
    ctx.report.stop(result.converged ? Termination::Converged : Termination::IterationCap,
                    how.str());
  }
  ctx.report.final_error = result.inertia;
  ctx.report.figures["inertia"] = result.inertia;
  ctx.report.figures["empty_cluster_repairs"] = double(result.empty_cluster_repairs);
  ctx.report.figures["sample_rows"] = double(rows_used);  // the rows Lloyd iterated on
  ctx.report.seconds = seconds_since(start);
  return centres;
}

}  // namespace radial::plugins
