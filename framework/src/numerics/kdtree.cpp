// K-d tree of Gaussian boxes (paper 002, section III-C) and log-densities restricted to the
// candidates of each point's leaf.
#include "radial/numerics/kdtree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "radial/errors.hpp"

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

  const Matrix& sample = points.size() != 0 ? points : centres.means;
  std::vector<std::uint32_t> all_points(sample.shape(0));
  std::iota(all_points.begin(), all_points.end(), 0u);
  std::vector<std::uint32_t> all_gaussians(m_);
  std::iota(all_gaussians.begin(), all_gaussians.end(), 0u);

  if (std::isinf(options.threshold)) {
    // Infinite boxes: one leaf holding everything, no split can help.
    nodes_.push_back(Node{});
    nodes_[0].leaf = 0;
    leaves_.push_back(all_gaussians);
  } else {
    build(all_points, all_gaussians, 0, sample);
  }

  exact_ = std::all_of(leaves_.begin(), leaves_.end(),
                       [&](const std::vector<std::uint32_t>& l) { return l.size() == m_; });
  double total = 0;
  for (std::size_t n = 0; n < sample.shape(0); ++n)
    total += double(leaves_[leaf_of(&sample(n, 0))].size());
  mean_candidates_ = sample.shape(0) ? total / double(sample.shape(0)) : double(m_);
}

std::uint32_t GaussianBoxTree::build(std::vector<std::uint32_t>& points,
                                     std::vector<std::uint32_t> gaussians, std::size_t depth,
                                     const Matrix& sample) {
  const std::uint32_t index = std::uint32_t(nodes_.size());
  nodes_.push_back(Node{});
  const std::size_t n = points.size(), g = gaussians.size();

  auto make_leaf = [&]() {
    nodes_[index].leaf = std::int64_t(leaves_.size());
    std::sort(gaussians.begin(), gaussians.end());
    leaves_.push_back(std::move(gaussians));
    return index;
  };
  if (g <= options_.leaf_size || n < options_.min_points || depth >= options_.max_depth)
    return make_leaf();

  // Expected work of a split at x_k = h: n_left g_left + n_right g_right, where a box enters
  // the left child when lower < h and the right child when upper >= h.
  const double current = double(n) * double(g);
  double best_cost = 0.9 * current;  // a split must save at least 10% to be worth a level
  std::size_t best_dim = d_;
  double best_split = 0;
  std::vector<double> xs(n), lowers(g), uppers(g), edges;
  edges.reserve(2 * g);
  for (std::size_t k = 0; k < d_; ++k) {
    for (std::size_t i = 0; i < n; ++i) xs[i] = sample(points[i], k);
    std::sort(xs.begin(), xs.end());
    if (!(xs.front() < xs.back())) continue;
    edges.clear();
    for (std::size_t i = 0; i < g; ++i) {
      lowers[i] = lower_(gaussians[i], k);
      uppers[i] = upper_(gaussians[i], k);
      if (lowers[i] > xs.front() && lowers[i] <= xs.back()) edges.push_back(lowers[i]);
      if (uppers[i] > xs.front() && uppers[i] <= xs.back()) edges.push_back(uppers[i]);
    }
    std::sort(lowers.begin(), lowers.end());
    std::sort(uppers.begin(), uppers.end());
    for (const double h : edges) {
      const auto n_left = double(std::lower_bound(xs.begin(), xs.end(), h) - xs.begin());
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

  std::vector<std::uint32_t> left_points, right_points, left_gaussians, right_gaussians;
  for (const std::uint32_t p : points)
    (sample(p, best_dim) < best_split ? left_points : right_points).push_back(p);
  for (const std::uint32_t j : gaussians) {
    if (lower_(j, best_dim) < best_split) left_gaussians.push_back(j);
    if (upper_(j, best_dim) >= best_split) right_gaussians.push_back(j);
  }
  points.clear();
  points.shrink_to_fit();
  gaussians.clear();
  gaussians.shrink_to_fit();

  nodes_[index].dim = best_dim;
  nodes_[index].split = best_split;
  const std::uint32_t left = build(left_points, std::move(left_gaussians), depth + 1, sample);
  const std::uint32_t right = build(right_points, std::move(right_gaussians), depth + 1, sample);
  nodes_[index].left = left;
  nodes_[index].right = right;
  return index;
}

std::size_t GaussianBoxTree::leaf_of(const double* x) const {
  std::size_t node = 0;
  while (nodes_[node].leaf < 0)
    node = x[nodes_[node].dim] < nodes_[node].split ? nodes_[node].left : nodes_[node].right;
  return std::size_t(nodes_[node].leaf);
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

}  // namespace radial
