// Random training points as centres, or all of them (see subset.hpp).
#include "subset.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/data/missing_values.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/distributed/sharded_rows.hpp"

namespace radial::plugins {

namespace {

// Number of centres equal to an earlier one (exact comparison: only identical rows give
// identical basis functions).
std::size_t count_duplicates(const Matrix& means) {
  const std::size_t m = means.shape(0), d = means.shape(1);
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t(0));
  auto row = [&](std::size_t i) { return means.data() + i * d; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(row(a), row(a) + d, row(b), row(b) + d);
  });
  std::size_t duplicates = 0;
  for (std::size_t i = 1; i < m; ++i)
    if (std::equal(row(order[i]), row(order[i]) + d, row(order[i - 1]))) ++duplicates;
  return duplicates;
}

}  // namespace

Centres SubsetCentres::fit(const Dataset& train, const KernelPrior*, FitContext& ctx) {
  const auto start = std::chrono::steady_clock::now();
  // train holds this rank's rows when the data are sharded (radial/distributed/collectives.hpp);
  // the centres are the same global rows whatever the rank count.
  const ShardLayout layout = shard_layout(train.rows());
  const std::size_t rows = layout.total;
  const std::string who = std::string("plugin ") + subset_id;
  if (rows == 0) throw InputError(who + ": the training data have no rows");
  // A training row with a missing cell cannot be a centre.
  refuse_missing(train.inputs, std::string("centres ") + subset_id);
  Centres centres;
  if (all_) {
    // The full RBF network: mu_m = x_m for every m, every rank's rows in global order.
    if (collectives().size() == 1) {
      centres.means = train.inputs;
    } else {
      std::vector<std::size_t> every(rows);
      std::iota(every.begin(), every.end(), std::size_t(0));
      centres.means = gather_rows(train.inputs, layout, every);
    }
  } else {
    const std::size_t count = count_ > 0 ? count_ : auto_centre_count(rows, centre_count_classes(train));
    if (count > rows) {
      std::ostringstream msg;
      msg << who << ": count = " << count << " but the training data have only " << rows
          << " rows; set centres.count <= " << rows << " or centres.all = true";
      throw InputError(msg.str());
    }
    // count distinct rows, uniformly at random.
    centres.means = kmeans_initial_centres(train.inputs, count, "random", ctx.rng);
  }
  centres.shape = Shape::None;

  const std::size_t duplicates = count_duplicates(centres.means);
  if (duplicates > 0) {
    std::ostringstream msg;
    msg << duplicates << " of the " << centres.count()
        << " centres coincide with another centre (identical training rows), so the design "
           "matrix has identical columns";
    ctx.warn("duplicate-centres", msg.str(),
             "remove duplicate rows from the data, or weight-penalty.alpha > 0");
  }
  report_chosen_centres(ctx.report,
                        "chose " + std::to_string(centres.count()) + " training rows as centres",
                        centres.count(), start);
  return centres;
}

}  // namespace radial::plugins
