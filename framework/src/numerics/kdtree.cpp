// K-d tree of Gaussian boxes (paper 002, section III-C) and log-densities restricted to the
// candidates of each point's leaf.
#include "radial/numerics/kdtree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/missing_cells.hpp"
#include "radial/distributed/sharded_rows.hpp"

namespace radial {

namespace {

constexpr double minus_inf = -std::numeric_limits<double>::infinity();

// Marginal variance of centre j in dimension k under its shape.
double marginal_variance(const Centres& c, std::size_t j, std::size_t k) {
  switch (c.shape) {
    case Shape::Spherical: return c.variances(j);
    case Shape::Diagonal: return c.diagonal(j, k);
    case Shape::Full: return c.covariances(j, k, k);
    case Shape::None: break;
  }
  throw ShapeError("K-d tree of Gaussian boxes: the centres have no shape; boxes need variances");
}

void require_shape(const Centres& c, const char* who) {
  if (c.shape == Shape::None)
    throw ShapeError(std::string(who) +
                     ": the centres have no shape (spherical, diagonal or full covariance)");
  c.check();
}

}  // namespace

GaussianBoxTree::GaussianBoxTree(const Centres& centres, const Matrix& points,
                                 const GaussianBoxTreeOptions& options)
    : m_(centres.count()), d_(centres.dim()), options_(options) {
  require_shape(centres, "K-d tree of Gaussian boxes");
  if (!(options.threshold > 0))
    throw ParameterError("K-d tree of Gaussian boxes: threshold = " +
                         std::to_string(options.threshold) +
                         ". Violated constraint: threshold > 0 (use inf for the exact limit)");
  if (options.leaf_size == 0)
    throw ParameterError("K-d tree of Gaussian boxes: leaf_size = 0. Violated constraint: "
                         "leaf_size >= 1");
  if (points.size() != 0 && points.shape(1) != d_)
    throw ShapeError("K-d tree of Gaussian boxes: points have " + std::to_string(points.shape(1)) +
                     " columns but the centres have " + std::to_string(d_));

  // Boxes t_jk = mu_jk -/+ sigma_jk sqrt(c)  (eq. 2).
  lower_ = Matrix::from_shape({m_, d_});
  upper_ = Matrix::from_shape({m_, d_});
  const double root_c = std::sqrt(options.threshold);
  for (std::size_t j = 0; j < m_; ++j)
    for (std::size_t k = 0; k < d_; ++k) {
      const double half = std::sqrt(marginal_variance(centres, j, k)) * root_c;
      lower_(j, k) = centres.means(j, k) - half;
      upper_(j, k) = centres.means(j, k) + half;
    }

  // The rows that choose the splits: every stride-th point (the means when there are none).
  Matrix strided;
  const std::size_t limit = std::max<std::size_t>(1, options.sample_rows);
  if (points.size() != 0 && points.shape(0) > limit) {
    const std::size_t stride = (points.shape(0) + limit - 1) / limit;
    strided = Matrix::from_shape({(points.shape(0) + stride - 1) / stride, d_});
    for (std::size_t r = 0, p = 0; p < points.shape(0); ++r, p += stride)
      for (std::size_t k = 0; k < d_; ++k) strided(r, k) = points(p, k);
  }
  const Matrix& sample = strided.size() != 0 ? strided : points.size() != 0 ? points : centres.means;
  std::vector<std::uint32_t> all_gaussians(m_);
  std::iota(all_gaussians.begin(), all_gaussians.end(), 0u);

  if (std::isinf(options.threshold)) {
    // Infinite boxes: one leaf holding everything, no split can help.
    nodes_.push_back(Node{});
    nodes_[0].leaf = 0;
    leaves_.push_back(all_gaussians);
  } else {
    // Points sorted once per dimension; splits partition these lists stably.
    const std::size_t rows = sample.shape(0);
    std::vector<std::vector<SortedPoint>> sorted(d_);
    for (std::size_t k = 0; k < d_; ++k) {
      sorted[k].resize(rows);
      for (std::size_t p = 0; p < rows; ++p) sorted[k][p] = {sample(p, k), std::uint32_t(p)};
      std::sort(sorted[k].begin(), sorted[k].end(),
                [](const SortedPoint& a, const SortedPoint& b) { return a.value < b.value; });
    }
    if (rows == 0) sorted.clear();
    std::vector<char> goes_left(rows);
    build(sorted, all_gaussians, 0, goes_left);
  }

  exact_ = std::all_of(leaves_.begin(), leaves_.end(),
                       [&](const std::vector<std::uint32_t>& l) { return l.size() == m_; });
  double total = 0;
  for (std::size_t n = 0; n < sample.shape(0); ++n)
    total += double(leaves_[leaf_of(&sample(n, 0))].size());
  mean_candidates_ = sample.shape(0) ? total / double(sample.shape(0)) : double(m_);
}

std::uint32_t GaussianBoxTree::build(std::vector<std::vector<SortedPoint>>& sorted,
                                     std::vector<std::uint32_t> gaussians, std::size_t depth,
                                     std::vector<char>& goes_left) {
  const std::uint32_t index = std::uint32_t(nodes_.size());
  nodes_.push_back(Node{});
  const std::size_t n = sorted.empty() ? 0 : sorted[0].size(), g = gaussians.size();

  auto make_leaf = [&]() {
    nodes_[index].leaf = std::int64_t(leaves_.size());
    std::sort(gaussians.begin(), gaussians.end());
    leaves_.push_back(std::move(gaussians));
    return index;
  };
  if (g <= options_.leaf_size || n < options_.min_points || depth >= options_.max_depth)
    return make_leaf();

  // Expected work of a split at x_k = h: n_left g_left + n_right g_right, where a box enters
  // the left child when lower < h and the right child when upper >= h. sorted[k] holds the
  // node's points in increasing x_k, so n_left is a binary search. Candidate planes are the
  // box edges inside the node's points, at most kMaxCandidates per dimension (evenly spaced
  // in sorted order).
  constexpr std::size_t kMaxCandidates = 64;
  const double current = double(n) * double(g);
  double best_cost = 0.9 * current;  // a split must save at least 10% to be worth a level
  std::size_t best_dim = d_;
  double best_split = 0;
  std::vector<double> lowers(g), uppers(g), edges;
  edges.reserve(2 * g);
  const auto value_below = [](const SortedPoint& p, double h) { return p.value < h; };
  for (std::size_t k = 0; k < d_; ++k) {
    const std::vector<SortedPoint>& order = sorted[k];
    const double first = order.front().value, last = order.back().value;
    if (!(first < last)) continue;
    edges.clear();
    for (std::size_t i = 0; i < g; ++i) {
      lowers[i] = lower_(gaussians[i], k);
      uppers[i] = upper_(gaussians[i], k);
      if (lowers[i] > first && lowers[i] <= last) edges.push_back(lowers[i]);
      if (uppers[i] > first && uppers[i] <= last) edges.push_back(uppers[i]);
    }
    if (edges.empty()) continue;
    std::sort(lowers.begin(), lowers.end());
    std::sort(uppers.begin(), uppers.end());
    std::sort(edges.begin(), edges.end());
    const std::size_t stride = (edges.size() + kMaxCandidates - 1) / kMaxCandidates;
    for (std::size_t e = stride / 2; e < edges.size(); e += stride) {
      const double h = edges[e];
      const auto n_left =
          double(std::lower_bound(order.begin(), order.end(), h, value_below) - order.begin());
      const auto g_left = double(std::lower_bound(lowers.begin(), lowers.end(), h) - lowers.begin());
      const auto g_right =
          double(uppers.end() - std::lower_bound(uppers.begin(), uppers.end(), h));
      const double cost = n_left * g_left + (double(n) - n_left) * g_right;
      if (cost < best_cost) {
        best_cost = cost;
        best_dim = k;
        best_split = h;
      }
    }
  }
  if (best_dim == d_) return make_leaf();

  // Stable partition of every sorted list keeps the children's lists sorted.
  for (const SortedPoint& p : sorted[best_dim]) goes_left[p.point] = p.value < best_split;
  std::vector<std::vector<SortedPoint>> left(d_), right(d_);
  for (std::size_t k = 0; k < d_; ++k) {
    for (const SortedPoint& p : sorted[k]) (goes_left[p.point] ? left[k] : right[k]).push_back(p);
    std::vector<SortedPoint>().swap(sorted[k]);
  }
  std::vector<std::uint32_t> left_gaussians, right_gaussians;
  for (const std::uint32_t j : gaussians) {
    if (lower_(j, best_dim) < best_split) left_gaussians.push_back(j);
    if (upper_(j, best_dim) >= best_split) right_gaussians.push_back(j);
  }
  std::vector<std::uint32_t>().swap(gaussians);

  nodes_[index].dim = best_dim;
  nodes_[index].split = best_split;
  const std::uint32_t l = build(left, std::move(left_gaussians), depth + 1, goes_left);
  const std::uint32_t r = build(right, std::move(right_gaussians), depth + 1, goes_left);
  nodes_[index].left = l;
  nodes_[index].right = r;
  return index;
}

std::size_t GaussianBoxTree::leaf_of(const double* x) const {
  std::size_t node = 0;
  while (nodes_[node].leaf < 0)
    node = x[nodes_[node].dim] < nodes_[node].split ? nodes_[node].left : nodes_[node].right;
  return std::size_t(nodes_[node].leaf);
}

Matrix box_tree_sample(const Matrix& points, std::size_t sample_rows) {
  const ShardLayout layout = shard_layout(points.dimension() == 2 ? points.shape(0) : 0);
  const std::size_t limit = std::max<std::size_t>(1, sample_rows);
  const std::size_t stride = layout.total > limit ? (layout.total + limit - 1) / limit : 1;
  if (collectives().size() == 1 && has_missing(points)) {
    // Rows with a missing cell (one process only) are left out of the boxes' sample.
    std::vector<std::size_t> rows;
    const std::size_t d = points.shape(1);
    for (std::size_t p = 0; p < layout.total; p += stride) {
      bool complete = true;
      for (std::size_t k = 0; k < d && complete; ++k) complete = !std::isnan(points(p, k));
      if (complete) rows.push_back(p);
    }
    if (rows.empty()) return mean_imputed(points);
    Matrix out = Matrix::from_shape({rows.size(), d});
    for (std::size_t i = 0; i < rows.size(); ++i) std::copy_n(&points(rows[i], 0), d, &out(i, 0));
    return out;
  }
  if (collectives().size() == 1 && stride == 1) return points;
  std::vector<std::size_t> rows;
  for (std::size_t p = 0; p < layout.total; p += stride) rows.push_back(p);
  Matrix sample = gather_rows(points, layout, rows);
  if (collectives().size() == 1 || !has_missing(points)) return sample;
  // Sharded with missing cells: the same rows as one process, those with a missing cell left
  // out (the same on every rank: the gathered sample is).
  const std::size_t d = sample.shape(1);
  std::vector<std::size_t> complete;
  for (std::size_t i = 0; i < sample.shape(0); ++i) {
    bool whole = true;
    for (std::size_t k = 0; k < d && whole; ++k) whole = !std::isnan(sample(i, k));
    if (whole) complete.push_back(i);
  }
  if (complete.empty()) {
    // One process's fallback: every row, mean-imputed (computed alike on every rank).
    std::vector<std::size_t> every(layout.total);
    for (std::size_t i = 0; i < every.size(); ++i) every[i] = i;
    const Matrix all = gather_rows(points, layout, every);
    ShardedScope local(single_process());
    return mean_imputed(all);
  }
  Matrix out = Matrix::from_shape({complete.size(), d});
  for (std::size_t i = 0; i < complete.size(); ++i)
    std::copy_n(&sample(complete[i], 0), d, &out(i, 0));
  return out;
}

double GaussianBoxTree::exact_threshold(const Centres& centres, const Matrix& points) {
  require_shape(centres, "GaussianBoxTree::exact_threshold");
  double c = 0;
  const std::size_t m = centres.count(), d = centres.dim();
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = 0; k < d; ++k) {
      const double inv = 1.0 / marginal_variance(centres, j, k);
      for (std::size_t n = 0; n < points.shape(0); ++n) {
        const double diff = points(n, k) - centres.means(j, k);
        c = std::max(c, diff * diff * inv);
      }
    }
  return c;
}

TreeLogDensity::TreeLogDensity(const Centres& centres, const GaussianBoxTree* tree)
    : m_(centres.count()), d_(centres.dim()), shape_(centres.shape), centres_(&centres),
      tree_(tree) {
  require_shape(centres, "TreeLogDensity");
  if (tree && (tree->count() != m_ || tree->dim() != d_))
    throw ShapeError("TreeLogDensity: the tree was built on " + std::to_string(tree->count()) +
                     " Gaussians in " + std::to_string(tree->dim()) + " dimensions, the centres are " +
                     std::to_string(m_) + " in " + std::to_string(d_));
  constant_ = Vector::from_shape({m_});
  const double d_log_2pi = double(d_) * std::log(2.0 * M_PI);
  if (shape_ == Shape::Full) {
    inverse_cholesky_ = Tensor3::from_shape({m_, d_, d_});
    inverse_cholesky_.fill(0.0);
    std::vector<double> l(d_ * d_);
    for (std::size_t j = 0; j < m_; ++j) {
      // Cholesky S_j = L L^T, then L^-1 by forward substitution.
      std::fill(l.begin(), l.end(), 0.0);
      double log_det = 0;
      for (std::size_t a = 0; a < d_; ++a) {
        for (std::size_t b = 0; b <= a; ++b) {
          double s = centres.covariances(j, a, b);
          for (std::size_t k = 0; k < b; ++k) s -= l[a * d_ + k] * l[b * d_ + k];
          if (a == b) {
            if (!(s > 0))
              throw ShapeError("TreeLogDensity: the covariance of centre " + std::to_string(j) +
                               " is not positive definite (pivot " + std::to_string(a) + ")");
            l[a * d_ + a] = std::sqrt(s);
            log_det += 2.0 * std::log(l[a * d_ + a]);
          } else {
            l[a * d_ + b] = s / l[b * d_ + b];
          }
        }
      }
      for (std::size_t col = 0; col < d_; ++col) {
        for (std::size_t a = col; a < d_; ++a) {
          double s = a == col ? 1.0 : 0.0;
          for (std::size_t k = col; k < a; ++k) s -= l[a * d_ + k] * inverse_cholesky_(j, k, col);
          inverse_cholesky_(j, a, col) = s / l[a * d_ + a];
        }
      }
      constant_(j) = -0.5 * (d_log_2pi + log_det);
    }
  } else {
    inverse_diagonal_ = Matrix::from_shape({m_, d_});
    for (std::size_t j = 0; j < m_; ++j) {
      double log_det = 0;
      for (std::size_t k = 0; k < d_; ++k) {
        const double v = shape_ == Shape::Spherical ? centres.variances(j) : centres.diagonal(j, k);
        inverse_diagonal_(j, k) = 1.0 / v;
        log_det += std::log(v);
      }
      constant_(j) = -0.5 * (d_log_2pi + log_det);
    }
  }
}

double TreeLogDensity::log_density(const double* x, std::size_t j) const {
  const double* mu = &centres_->means(j, 0);
  double r2 = 0;
  if (shape_ == Shape::Full) {
    const double* li = &inverse_cholesky_(j, 0, 0);
    for (std::size_t a = 0; a < d_; ++a) {
      double z = 0;
      for (std::size_t b = 0; b <= a; ++b) z += li[a * d_ + b] * (x[b] - mu[b]);
      r2 += z * z;
    }
  } else {
    const double* iv = &inverse_diagonal_(j, 0);
    for (std::size_t k = 0; k < d_; ++k) {
      const double diff = x[k] - mu[k];
      r2 += diff * diff * iv[k];
    }
  }
  return constant_(j) - 0.5 * r2;
}

void TreeLogDensity::compute_sparse(const Matrix& x_block, SparseLogDensity& out) const {
  if (x_block.shape(1) != d_)
    throw ShapeError("TreeLogDensity: the block has " + std::to_string(x_block.shape(1)) +
                     " columns but the centres have " + std::to_string(d_));
  const std::size_t rows = x_block.shape(0);
  out.offset.assign(rows + 1, 0);
  out.component.clear();
  out.value.clear();
  for (std::size_t n = 0; n < rows; ++n) {
    const double* x = &x_block(n, 0);
    if (tree_) {
      for (const std::uint32_t j : tree_->candidates(tree_->leaf_of(x))) {
        out.component.push_back(j);
        out.value.push_back(log_density(x, j));
      }
    } else {
      for (std::size_t j = 0; j < m_; ++j) {
        out.component.push_back(std::uint32_t(j));
        out.value.push_back(log_density(x, j));
      }
    }
    out.offset[n + 1] = out.component.size();
  }
}

void TreeLogDensity::compute_dense(const Matrix& x_block, Matrix& out) const {
  if (x_block.shape(1) != d_)
    throw ShapeError("TreeLogDensity: the block has " + std::to_string(x_block.shape(1)) +
                     " columns but the centres have " + std::to_string(d_));
  const std::size_t rows = x_block.shape(0);
  out.resize({rows, m_});
  out.fill(minus_inf);
  for (std::size_t n = 0; n < rows; ++n) {
    const double* x = &x_block(n, 0);
    double* o = &out(n, 0);
    if (tree_) {
      for (const std::uint32_t j : tree_->candidates(tree_->leaf_of(x))) o[j] = log_density(x, j);
    } else {
      for (std::size_t j = 0; j < m_; ++j) o[j] = log_density(x, j);
    }
  }
}

OptionTable<GaussianBoxTreeOptions> kdtree_table() {
  OptionTable<GaussianBoxTreeOptions> t;
  t.bind("threshold", &GaussianBoxTreeOptions::threshold,
         "c of the K-d tree's Gaussian boxes mu -/+ sigma sqrt(c) (eq. 2); a huge value such as "
         "1e300 drops no Gaussian (exact)")
      .above(0.0);
  t.bind("leaf_size", &GaussianBoxTreeOptions::leaf_size,
         "K-d tree nodes with at most this many Gaussians are leaves")
      .at_least(1);
  return t;
}

}  // namespace radial
