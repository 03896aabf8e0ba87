// The EM driver of the mixture EM (mixture_em.hpp): E/M iterations with the empty-component
// policy, k-means initialisation and per-class mixtures (paper 002, section III-A, fig. 1).
// The steps themselves are in mixture_estep.cpp and mixture_mstep.cpp.
#include "radial/numerics/mixture/mixture_em.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>

#include "mixture_em_detail.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/numerics/missing_cells.hpp"
#include "radial/numerics/kmeans/kmeans.hpp"
#include "radial/distributed/sharded_rows.hpp"

namespace radial {

using namespace mixture_detail;

namespace {

// The `count` rows of every rank with the lowest log-likelihood under the mixture of `s` (ties:
// the lower row; at most every row), for an empty component each: each rank proposes its next
// lowest, the owner sends it (take_best_rows).
std::vector<RowCandidate> worst_explained_rows(const Matrix& x, const EStepSummary& s,
                                               const ShardLayout& layout, std::size_t count) {
  const std::size_t k = std::min(count, layout.total), n_rows = x.shape(0), d = x.shape(1);
  std::vector<std::size_t> order(n_rows);
  std::iota(order.begin(), order.end(), 0);
  const std::size_t local_k = std::min(k, n_rows);
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(local_k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      const double la = s.row_log_likelihood(a), lb = s.row_log_likelihood(b);
                      return la < lb || (la == lb && a < b);
                    });
  order.resize(local_k);
  std::vector<RowCandidate> worst;
  take_best_rows(
      k, order, /*largest=*/false, [](std::size_t) { return true; },
      [&](std::size_t i) {
        RowCandidate mine;
        mine.has = true;
        mine.key = s.row_log_likelihood(i);
        mine.row = layout.first + i;
        mine.values.assign(&x(i, 0), &x(i, 0) + d);
        return mine;
      },
      [&](const RowCandidate& row, std::size_t) { worst.push_back(row); });
  return worst;
}

}  // namespace

EmResult em_mixture(const Matrix& x, Centres initial, Vector initial_weights,
                    const EmOptions& options) {
  if (initial.shape != options.shape)
    throw ShapeError(std::string("em_mixture: initial components have shape ") +
                     to_string(initial.shape) + " but options.shape is " +
                     to_string(options.shape));
  initial.check();
  // x holds this rank's rows; the E-steps sum over the ranks of collectives().
  const ShardLayout layout = shard_layout(x.dimension() == 2 ? x.shape(0) : 0);
  const std::size_t total_rows = layout.total, m = initial.count(),
                    d = initial.dim();
  if (total_rows == 0) throw InputError("em_mixture: no rows to fit");
  EmResult result;
  result.components = std::move(initial);
  result.components.owner = Labels();
  result.weights = std::move(initial_weights);
  if (result.weights.size() != m)
    throw ShapeError("em_mixture: " + std::to_string(result.weights.size()) + " weights for " +
                     std::to_string(m) + " components");

  MixtureCounts counts;
  MStepOptions mopt;
  mopt.covariance_floor = options.covariance_floor;
  EStepOptions eopt;
  eopt.block_rows = options.block_rows;
  eopt.threads = options.threads;

  for (std::size_t i = 0;; ++i) {
    // The last E-step only measures the log-likelihood of the final parameters.
    eopt.statistics = i < options.iterations;
    std::unique_ptr<GaussianBoxTree> tree;
    if (options.use_tree) {
      tree = std::make_unique<GaussianBoxTree>(
          result.components, box_tree_sample(x, options.tree.sample_rows), options.tree);
      eopt.tree = tree.get();
    }
    const EStepSummary s =
        e_step(x, result.components, log_of(result.weights), nullptr, eopt, counts);
    eopt.tree = nullptr;
    result.log_likelihood.push_back(s.log_likelihood);
    result.final_log_likelihood = s.log_likelihood;
    result.fallback_rows += s.fallback_rows;
    result.mean_candidates = s.mean_candidates;
    if (i > 0 && options.tolerance > 0) {
      const double previous = result.log_likelihood[i - 1];
      if (std::fabs(s.log_likelihood - previous) <= options.tolerance * std::fabs(previous)) {
        result.converged = true;
        break;
      }
    }
    if (i == options.iterations) break;

    const MStepSummary ms = m_step(counts, mopt, result.components, result.weights);
    ++result.iterations;
    if (ms.floored) {
      result.floored += ms.floored;
      result.notes.push_back("iteration " + std::to_string(i + 1) + ": " +
                             std::to_string(ms.floored) + " variance(s) raised to the floor " +
                             number(options.covariance_floor) + " (smallest was " +
                             number(ms.smallest_variance) + ")");
    }
    if (ms.jittered) {
      result.floored += ms.jittered;
      result.notes.push_back("iteration " + std::to_string(i + 1) + ": " +
                             std::to_string(ms.jittered) +
                             " near-singular covariance(s) (a conditional variance below the "
                             "floor) got up to " + number(ms.largest_jitter) + " I added");
    }
    if (!ms.empty.empty()) {
      const std::vector<RowCandidate> worst = worst_explained_rows(x, s, layout, ms.empty.size());
      const std::size_t k = worst.size();
      std::vector<double> mean_var(d, 0.0);
      std::size_t live = 0;
      for (std::size_t j = 0; j < m; ++j) {
        if (std::find(ms.empty.begin(), ms.empty.end(), j) != ms.empty.end()) continue;
        ++live;
        for (std::size_t kk = 0; kk < d; ++kk) mean_var[kk] += variance_of(result.components, j, kk);
      }
      for (double& v : mean_var) v = live ? v / double(live) : 1.0;
      for (std::size_t e = 0; e < ms.empty.size(); ++e) {
        const std::size_t j = ms.empty[e];
        const RowCandidate& row = worst[std::min(e, k - 1)];
        // A missing cell of the row keeps the component's old mean there.
        for (std::size_t kk = 0; kk < d; ++kk)
          if (!std::isnan(row.values[kk])) result.components.means(j, kk) = row.values[kk];
        set_variances(result.components, j, mean_var);
        result.weights(j) = 1.0 / double(total_rows);
        ++result.empty_repairs;
        result.notes.push_back("iteration " + std::to_string(i + 1) + ": component " +
                               std::to_string(j) + " lost all responsibility (C(1) = " +
                               number(counts.c1(j)) + "); reseeded at row " +
                               std::to_string(row.row));
      }
      const double total = xt::sum(result.weights)();
      for (std::size_t j = 0; j < m; ++j) result.weights(j) /= total;
    }
  }
  return result;
}

EmResult em_mixture_kmeans(const Matrix& x, std::size_t count, const EmOptions& options,
                           std::mt19937_64& rng, std::size_t* kmeans_repairs) {
  const std::uint64_t rows = count_over_ranks(x.dimension() == 2 ? x.shape(0) : 0);
  if (rows < count)
    throw InputError("EM initialisation: " + std::to_string(rows) +
                     " rows are fewer than the " + std::to_string(count) +
                     " components; lower the component count");
  KMeansOptions kopt;
  kopt.threads = options.threads;
  kopt.count = count;
  // Missing cells (NaN): the start is fitted with them at their column means; EM then treats
  // them as missing.
  Matrix imputed;
  const bool missing = has_missing(x);
  if (missing) imputed = mean_imputed(x);
  const Matrix& start = missing ? imputed : x;
  const KMeansResult km = kmeans(start, kopt, rng);
  if (kmeans_repairs) *kmeans_repairs += km.empty_cluster_repairs;
  Centres initial;
  Vector weights;
  mixture_from_assignment(start, km.assignment, km.centres, options.shape, options.covariance_floor,
                          initial, weights);
  return em_mixture(x, std::move(initial), std::move(weights), options);
}

ClassMixtures fit_class_mixtures(const Matrix& x, const Labels& classes, std::size_t num_classes,
                                 std::size_t count, const EmOptions& options,
                                 std::mt19937_64& rng, const std::string& where) {
  const std::size_t n_rows = x.shape(0), d = x.shape(1);
  if (classes.size() != n_rows)
    throw ShapeError(where + ": " + std::to_string(classes.size()) + " class labels for " +
                     std::to_string(n_rows) + " rows");
  std::vector<std::vector<std::size_t>> rows(num_classes);
  for (std::size_t n = 0; n < n_rows; ++n) {
    const std::int64_t c = classes(n);
    if (c < 0 || std::size_t(c) >= num_classes)
      throw InputError(where + ": row " + std::to_string(n) + " has class index " +
                       std::to_string(c) + " outside 0.." + std::to_string(num_classes - 1));
    rows[std::size_t(c)].push_back(n);
  }
  // Rows of each class over every rank (a class may be missing from this rank's rows).
  std::vector<std::uint64_t> class_rows(num_classes + 1, 0);
  for (std::size_t k = 0; k < num_classes; ++k) class_rows[k] = rows[k].size();
  class_rows[num_classes] = n_rows;
  sum_over_ranks(class_rows);
  ClassMixtures out;
  const std::size_t m = num_classes * count;
  allocate_shape(out.centres, m, d, options.shape);
  out.centres.owner = Labels::from_shape({m});
  out.centres.mixing = xt::zeros<double>({m, num_classes});
  out.centres.class_priors = Vector::from_shape({num_classes});
  for (std::size_t k = 0; k < num_classes; ++k) {
    if (class_rows[k] < count)
      throw InputError(where + ": class " + std::to_string(k) + " has " +
                       std::to_string(class_rows[k]) + " training rows, fewer than count = " +
                       std::to_string(count) + " Gaussians per class; lower count");
    Matrix xk = Matrix::from_shape({rows[k].size(), d});
    for (std::size_t i = 0; i < rows[k].size(); ++i)
      std::memcpy(&xk(i, 0), &x(rows[k][i], 0), d * sizeof(double));
    EmResult fit = em_mixture_kmeans(xk, count, options, rng, &out.kmeans_repairs);
    for (std::size_t g = 0; g < count; ++g) {
      const std::size_t j = k * count + g;
      for (std::size_t c = 0; c < d; ++c) out.centres.means(j, c) = fit.components.means(g, c);
      if (options.shape == Shape::Spherical) out.centres.variances(j) = fit.components.variances(g);
      if (options.shape == Shape::Diagonal)
        for (std::size_t c = 0; c < d; ++c) out.centres.diagonal(j, c) = fit.components.diagonal(g, c);
      if (options.shape == Shape::Full)
        for (std::size_t a = 0; a < d; ++a)
          for (std::size_t b = 0; b < d; ++b)
            out.centres.covariances(j, a, b) = fit.components.covariances(g, a, b);
      out.centres.owner(j) = std::int64_t(k);
      out.centres.mixing(j, k) = fit.weights(g);
    }
    out.centres.class_priors(k) = double(class_rows[k]) / double(class_rows[num_classes]);
    out.per_class.push_back(std::move(fit));
  }
  return out;
}

double mixture_log_likelihood(const Matrix& x, const Centres& components, const Vector& weights) {
  const Vector lw = log_of(weights);
  check_inputs(x, components, lw.size(), "mixture_log_likelihood");
  EStepOptions options;
  options.statistics = false;
  MixtureCounts unused;
  return e_step(x, components, lw, nullptr, options, unused).log_likelihood;
}

}  // namespace radial
