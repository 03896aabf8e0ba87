// The M-step of the mixture EM (mixture_em.hpp): weights, means and covariances from the
// centred occupation counts, with the covariance floor (paper 002, fig. 1; PRBF eqs 6-8), and
// the M-step of a hard assignment (k-means start).
#include <algorithm>
#include <cmath>
#include <map>

#include "mixture_em_detail.hpp"

namespace radial {

using namespace mixture_detail;

namespace {

// Smallest squared Cholesky pivot of a symmetric d x d matrix, i.e. the smallest conditional
// variance Var(x_a | x_0..x_{a-1}); <= 0 when the matrix is not positive definite.
double smallest_pivot(const double* s, std::size_t d) {
  std::vector<double> l(d * d, 0.0);
  double smallest = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < d; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double v = s[a * d + b];
      for (std::size_t k = 0; k < b; ++k) v -= l[a * d + k] * l[b * d + k];
      if (a == b) {
        if (!(v > 0)) return v;
        smallest = std::min(smallest, v);
        l[a * d + a] = std::sqrt(v);
      } else {
        l[a * d + b] = v / l[b * d + b];
      }
    }
  return smallest;
}

}  // namespace

void covariance_about(const MixtureCounts& counts, std::size_t j, const double* mean,
                      double* out) {
  const std::size_t d = counts.cx.shape(1);
  const double c1 = counts.c1(j);
  std::vector<double> e(d), g(d);
  for (std::size_t a = 0; a < d; ++a) {
    e[a] = mean[a] - counts.reference(j, a);
    g[a] = counts.cy(j, a);
  }
  if (counts.shape == Shape::Full) {
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b <= a; ++b) {
        const double v =
            (counts.scatter(j, a, b) + c1 * e[a] * e[b] - e[a] * g[b] - g[a] * e[b]) / c1;
        out[a * d + b] = v;
        out[b * d + a] = v;
      }
  } else {
    for (std::size_t a = 0; a < d; ++a)
      out[a] = (counts.scatter_diagonal(j, a) + c1 * e[a] * e[a] - 2 * e[a] * g[a]) / c1;
  }
}

MStepSummary m_step(const MixtureCounts& counts, const MStepOptions& options, Centres& components,
                    Vector& weights) {
  const std::size_t m = components.count(), d = components.dim();
  if (counts.c1.size() != m || counts.shape != components.shape)
    throw ShapeError("M-step: the counts do not match the components (" +
                     std::to_string(counts.c1.size()) + " counts of shape " +
                     to_string(counts.shape) + ", " + std::to_string(m) + " components of shape " +
                     to_string(components.shape) + ")");
  MStepSummary summary;
  summary.smallest_variance = std::numeric_limits<double>::infinity();
  const double floor = options.covariance_floor;
  std::vector<double> v(d), mean(d);
  for (std::size_t j = 0; j < m; ++j) {
    const double c1 = counts.c1(j);
    if (!(c1 >= options.empty_count)) {
      summary.empty.push_back(j);
      continue;
    }
    // mu = C(x) / C(1), as the reference plus the centred first moment's mean.
    for (std::size_t k = 0; k < d; ++k) mean[k] = counts.reference(j, k) + counts.cy(j, k) / c1;
    if (components.shape == Shape::Full) {
      double* s = &components.covariances(j, 0, 0);
      covariance_about(counts, j, mean.data(), s);
      for (std::size_t a = 0; a < d; ++a) {
        summary.smallest_variance = std::min(summary.smallest_variance, s[a * d + a]);
        if (!(s[a * d + a] >= floor)) {
          s[a * d + a] = floor;
          ++summary.floored;
        }
      }
      // Every conditional variance (squared Cholesky pivot) must reach the floor too, else
      // the covariance is near-singular: add the smallest floor * 10^i * I that fixes it.
      double added = 0, step = floor;
      for (int attempt = 0; attempt < 30 && !(smallest_pivot(s, d) >= floor); ++attempt) {
        for (std::size_t a = 0; a < d; ++a) s[a * d + a] += step - added;
        added = step;
        step *= 10;
      }
      if (added > 0) {
        ++summary.jittered;
        summary.largest_jitter = std::max(summary.largest_jitter, added);
      }
    } else {
      covariance_about(counts, j, mean.data(), v.data());
      if (components.shape == Shape::Spherical) {
        double s = 0;
        for (std::size_t k = 0; k < d; ++k) s += v[k];
        s /= double(d);
        summary.smallest_variance = std::min(summary.smallest_variance, s);
        if (!(s >= floor)) {
          s = floor;
          ++summary.floored;
        }
        components.variances(j) = s;
      } else {
        for (std::size_t k = 0; k < d; ++k) {
          summary.smallest_variance = std::min(summary.smallest_variance, v[k]);
          if (!(v[k] >= floor)) {
            v[k] = floor;
            ++summary.floored;
          }
          components.diagonal(j, k) = v[k];
        }
      }
    }
    for (std::size_t k = 0; k < d; ++k) components.means(j, k) = mean[k];
  }
  // Weights w_j = C(1)_j / sum over the component's group (all components without owners).
  if (weights.size() != m) weights = Vector::from_shape({m});
  const bool grouped = components.owner.size() == m;
  std::map<std::int64_t, double> totals;
  for (std::size_t j = 0; j < m; ++j) totals[grouped ? components.owner(j) : 0] += counts.c1(j);
  for (std::size_t j = 0; j < m; ++j) {
    const double t = totals[grouped ? components.owner(j) : 0];
    weights(j) = t > 0 ? counts.c1(j) / t : 0.0;
  }
  return summary;
}

void mixture_from_assignment(const Matrix& x, const Labels& assignment, const Matrix& means,
                             Shape shape, double covariance_floor, Centres& components,
                             Vector& weights) {
  const std::size_t n_rows = x.shape(0), d = x.shape(1), m = means.shape(0);
  if (assignment.size() != n_rows)
    throw ShapeError("mixture_from_assignment: " + std::to_string(assignment.size()) +
                     " labels for " + std::to_string(n_rows) + " rows");
  // This rank's rows; the counts and data moments are summed over the ranks of collectives().
  const std::size_t total_rows = std::size_t(count_over_ranks(n_rows));
  allocate_shape(components, m, d, shape);
  components.means = means;
  MixtureCounts counts;
  counts.reset(m, d, shape);
  counts.reference = means;
  for (std::size_t n = 0; n < n_rows; ++n) {
    const auto j = std::size_t(assignment(n));
    if (j >= m)
      throw ShapeError("mixture_from_assignment: row " + std::to_string(n) + " is assigned to " +
                       std::to_string(j) + " of " + std::to_string(m) + " clusters");
    accumulate_one(&x(n, 0), j, 1.0, counts, d);
  }
  // Data variance per dimension: the shape of clusters too small to estimate their own.
  std::vector<double> data_var(d, 0.0), data_mean(d, 0.0);
  for (std::size_t n = 0; n < n_rows; ++n)
    for (std::size_t k = 0; k < d; ++k) data_mean[k] += x(n, k) / double(total_rows);
  sum_arrays_over_ranks(count_arrays(counts), data_mean);
  for (std::size_t n = 0; n < n_rows; ++n)
    for (std::size_t k = 0; k < d; ++k)
      data_var[k] += (x(n, k) - data_mean[k]) * (x(n, k) - data_mean[k]) / double(total_rows);
  sum_over_ranks(data_var);
  for (double& v : data_var) v = std::max(v, covariance_floor);

  MStepOptions options;
  options.covariance_floor = covariance_floor;
  options.empty_count = 1.5;  // clusters of 0 or 1 rows have no variance to estimate
  Centres owned = components;
  owned.owner = Labels();
  m_step(counts, options, owned, weights);
  components = owned;
  components.means = means;
  for (std::size_t j = 0; j < m; ++j)
    if (counts.c1(j) < 1.5) set_variances(components, j, data_var);
  double total = 0;
  for (std::size_t j = 0; j < m; ++j) total += counts.c1(j);
  for (std::size_t j = 0; j < m; ++j) weights(j) = counts.c1(j) / total;
}

}  // namespace radial
