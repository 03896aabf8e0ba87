#pragma once
// The K-d tree of Gaussian boxes (Klautau, paper 002, section III-C; Fritsch & Rogina's bucket
// box intersection). Each Gaussian j gets an axis-aligned box
//
//     t_jk = mu_jk -/+ sigma_jk sqrt(c)                                   (paper 002, eq. 2)
//
// with one relative threshold c for every Gaussian (c = -2 ln gamma, gamma the density relative
// to the Gaussian's peak at which the box is cut). A K-d tree partitions the input space by
// hyperplanes x_k = h; each leaf (bucket) lists the Gaussians whose boxes intersect its cell.
// For a point, only the Gaussians of its leaf are evaluated; the others are taken as 0.
//
// Shapes: diagonal boxes use the variances; spherical ones the common variance in every
// dimension; full covariances their marginal standard deviations sqrt(S_kk), which bound the
// ellipsoid (x - mu)^T S^-1 (x - mu) <= c exactly along each axis.
//
// Exactness: a Gaussian whose box contains x is always a candidate of x's leaf. So with
// c >= exact_threshold(centres, points) (every box holds every point) or c = +inf (the tree is a
// single leaf with every Gaussian) the candidates are all Gaussians and results equal brute force.
//
// Splits are chosen among box edges to minimise the expected work sum_leaf points x candidates,
// estimated on the points the tree will serve (the training rows, at most sample_rows of them),
// as in the GOC idea of Ramasubramanian & Paliwal (paper 002, ref. [14]): a cost-optimised K-d
// tree over the boxes. The points are sorted once per dimension and partitioned stably down the
// tree; at most 64 candidate planes per dimension and node are tried.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "radial/core/centres.hpp"
#include "radial/core/option_table.hpp"
#include "radial/core/params.hpp"
#include "radial/core/types.hpp"

namespace radial {

struct GaussianBoxTreeOptions {
  double threshold = 16.0;     // c of eq. 2 (in squared standard deviations); +inf: exact
  std::size_t leaf_size = 4;   // a node with at most this many Gaussians is not split further
  std::size_t max_depth = 24;  // cap on the depth of the tree
  std::size_t min_points = 8;  // a node with fewer sample points is not split further
  std::size_t sample_rows = 1024;  // splits are chosen on at most this many rows (every
                                   // ceil(N / sample_rows)-th), which bounds the build cost
};

// The tree's parameters as every component that offers it declares them: `kdtree` (on/off, in
// `use_tree`), `threshold` and `leaf_size` (in `tree`). Declared once here so gmm, dem and bayes
// cannot drift apart.
OptionTable<GaussianBoxTreeOptions> kdtree_table();
inline constexpr char kdtree_doc[] = "evaluate only the Gaussians of each row's K-d tree leaf";
template <class Options>
void add_kdtree_params(OptionTable<Options>& table, bool Options::*use_tree,
                       GaussianBoxTreeOptions Options::*tree, std::string doc = kdtree_doc) {
  table.bind("kdtree", use_tree, std::move(doc));
  table.include(tree, kdtree_table());
}

class GaussianBoxTree {
 public:
  // Builds the boxes of `centres` (which must have a shape; ShapeError otherwise) and the tree,
  // choosing splits with the rows of `points` (N x d; may be empty, then the means are used).
  // Throws ParameterError for threshold <= 0 or NaN, or leaf_size = 0.
  GaussianBoxTree(const Centres& centres, const Matrix& points,
                  const GaussianBoxTreeOptions& options);

  // The leaf that the point x (d values) falls in.
  std::size_t leaf_of(const double* x) const;
  // The Gaussians (indices into the centres, ascending) of a leaf.
  const std::vector<std::uint32_t>& candidates(std::size_t leaf) const { return leaves_[leaf]; }

  std::size_t leaf_count() const { return leaves_.size(); }
  std::size_t count() const { return m_; }
  std::size_t dim() const { return d_; }
  // True when every leaf holds every Gaussian (c = +inf or boxes covering everything).
  bool exact() const { return exact_; }
  // Mean number of candidates per sample row used at build time (M when exact).
  double mean_candidates() const { return mean_candidates_; }
  // Box limits, M x d each (for tests and plots).
  const Matrix& lower() const { return lower_; }
  const Matrix& upper() const { return upper_; }

  // The smallest c at which every box of `centres` holds every row of `points`:
  // max_{n,j,k} (x_nk - mu_jk)^2 / sigma_jk^2. Any threshold at or above it is exact.
  static double exact_threshold(const Centres& centres, const Matrix& points);

 private:
  struct Node {
    std::size_t dim = 0;
    double split = 0;                 // x[dim] < split goes left
    std::uint32_t left = 0, right = 0;
    std::int64_t leaf = -1;           // >= 0 for a leaf
  };
  struct SortedPoint {
    double value;         // x_k of the point
    std::uint32_t point;  // row in the sample
  };
  // sorted[k]: the node's sample points in increasing x_k (emptied by the call);
  // goes_left: scratch of one flag per sample row.
  std::uint32_t build(std::vector<std::vector<SortedPoint>>& sorted,
                      std::vector<std::uint32_t> gaussians, std::size_t depth,
                      std::vector<char>& goes_left);

  std::size_t m_ = 0, d_ = 0;
  GaussianBoxTreeOptions options_;
  Matrix lower_, upper_;
  std::vector<Node> nodes_;
  std::vector<std::vector<std::uint32_t>> leaves_;
  bool exact_ = false;
  double mean_candidates_ = 0;
};

// The rows that choose a tree's splits when the points are sharded over the ranks of
// collectives(): every ceil(N / sample_rows)-th row of all ranks' rows (N of them), in global
// order, on every rank (all rows when N <= sample_rows). Collective. A tree built on them is the
// tree of one process on all rows (the constructor samples the same rows), so every rank's
// E-step sees the same candidates.
Matrix box_tree_sample(const Matrix& points, std::size_t sample_rows);

// Sparse log-densities of a block of rows: row n holds entries [offset[n], offset[n+1]) of
// (component, value) pairs, value = log N(x_n | c_j, S_j), components ascending.
struct SparseLogDensity {
  std::vector<std::size_t> offset;       // rows + 1
  std::vector<std::uint32_t> component;
  std::vector<double> value;
  std::size_t rows() const { return offset.empty() ? 0 : offset.size() - 1; }
};

// Gaussian log-densities restricted to the candidates of each row's leaf. Per-component
// factors (inverse variances or inverse Cholesky factors, normalising constants) are computed
// once in the constructor; compute_*() are const. With tree == nullptr every component is a
// candidate (the brute-force reference, evaluated the same way).
class TreeLogDensity {
 public:
  // `centres` must have a shape (ShapeError) and stay alive; `tree` (if given) must have been
  // built on the same centres and stay alive.
  TreeLogDensity(const Centres& centres, const GaussianBoxTree* tree);

  // Sparse: candidates only.
  void compute_sparse(const Matrix& x_block, SparseLogDensity& out) const;
  // Dense rows x M with non-candidates at -inf.
  void compute_dense(const Matrix& x_block, Matrix& out) const;
  // log N(x | c_j, S_j) of one row and one component (the fallback when a leaf lacks a
  // Gaussian that must be evaluated).
  double log_density(const double* x, std::size_t j) const;

  std::size_t count() const { return m_; }
  std::size_t dim() const { return d_; }

 private:
  std::size_t m_ = 0, d_ = 0;
  Shape shape_ = Shape::None;
  const Centres* centres_ = nullptr;
  const GaussianBoxTree* tree_ = nullptr;
  Matrix inverse_diagonal_;      // M x d (spherical and diagonal)
  Tensor3 inverse_cholesky_;     // M x d x d, L_j^-1 (full)
  Vector constant_;              // -0.5 (d log 2 pi + log |S_j|)
};

}  // namespace radial
