#pragma once
// The error of the whole network as a function of its centres, widths and output weights, for
// training them together after the two-stage fit (NETLAB's rbferr and rbfgrad; Frank 2014,
// Weka's RBFClassifier and RBFRegressor; Gerber & Lloyd's ellipsoidal RBF):
//
//   r2_nj  = (x_n - c_j)^T S_j^{-1} (x_n - c_j)   (S_j = I for Euclidean bases)
//   phi_nj = basis(r2_nj),   A = [Phi 1] W,   Y = link(A)
//   E      = E_data(Y, T) + penalty(W)
//
// E_data is the output layers' own error (radial/glm/objective.hpp): 1/2 sum (y - t)^2 for the
// identity link, the cross-entropy for logistic and softmax, so that dE_data/dA = Y - T for each.
// Back through the basis (basis.map_derivative gives phi'(r2)):
//
//   dE/dW    = [Phi 1]^T (Y - T) + dpenalty/dW
//   U        = ((Y - T) W_phi^T) o phi'          (W_phi: W without its bias row; N x M)
//   dE/dc_j  = -2 S_j^{-1} sum_n u_nj (x_n - c_j)
//
// Widths are log factors on the starting shapes S0, so they stay positive:
//   global      S_j = e^theta S0_j             dE/dtheta   = -sum_nj u_nj r2_nj
//   per centre  S_j = e^theta_j S0_j           dE/dtheta_j = -sum_n u_nj r2_nj
//   diagonal    s_ja = e^theta_ja s0_ja        dE/dtheta_ja = -sum_n u_nj (x_na - c_ja)^2 / s_ja
// (spherical, diagonal or full S0 for the first two; spherical or diagonal for the third).
//
// Parameters are one vector: the centres row-major (M d, when trained), the width logs (1, M or
// M d), then W row-major ((M + 1) K, bias last). Rows are taken in fixed blocks whose partial
// sums are added in block order, so every value is the same bits for any thread count; over the
// ranks of collectives() the one-process fold continues across ranks (bit for bit the one
// process's sums on block-aligned shards: radial/distributed/sharded_pass.hpp).

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "radial/network/basis.hpp"
#include "radial/core/centres.hpp"
#include "radial/network/link.hpp"
#include "radial/core/types.hpp"
#include "radial/network/weight_penalty.hpp"

namespace radial {
class SquaredDistances;
struct RowBlock;
}  // namespace radial

namespace radial::refine {

enum class WidthMode {
  None,       // the widths stay as they are (Euclidean bases have none)
  Global,     // one factor on every centre's shape
  PerCentre,  // one factor per centre
  Diagonal,   // one factor per centre and input (an axis-aligned ellipsoid per centre)
};

// "none", "global", "per-centre", "diagonal" and back; InputError for another word.
WidthMode width_mode_from_string(const std::string& word);
const char* to_string(WidthMode mode);

struct NetworkOptions {
  bool centres = true;                // train the centres' positions
  WidthMode widths = WidthMode::None;
  int threads = 1;                    // row-block workers (0: every core); never changes a bit
  std::size_t block_rows = 1024;
  // Largest memory for the rows' features kept between evaluations ((3d + 1) doubles a row);
  // above it they are made again in every pass (the same bits).
  std::size_t feature_cache_bytes = std::size_t(512) << 20;
};

class NetworkObjective {
 public:
  // x: this rank's rows (N x d), kept by reference; targets N x K as targets_for(link, data);
  // `start` the prepared centres (with the shapes the basis uses), `weights` (M + 1) x K.
  // `penalty` may be null. Throws InputError when the basis cannot be differentiated, when
  // widths are asked of a basis without trainable shapes or of shapes the mode cannot take,
  // and for a link other than identity, logistic and softmax; ShapeError on mismatched sizes.
  NetworkObjective(const Matrix& x, Matrix targets, Link link, const Basis& basis,
                   Centres start, Matrix weights, const WeightPenalty* penalty,
                   NetworkOptions options);
  ~NetworkObjective();
  NetworkObjective(const NetworkObjective&) = delete;
  NetworkObjective& operator=(const NetworkObjective&) = delete;

  std::size_t size() const { return size_; }
  std::size_t centre_parameters() const { return centre_size_; }
  std::size_t width_parameters() const { return width_size_; }
  std::size_t weight_parameters() const { return weight_size_; }

  // The starting parameter vector: the centres, zero width logs, the weights.
  Vector start() const;
  // The network at a parameter vector.
  Centres centres_at(const Vector& theta) const;
  Matrix weights_at(const Vector& theta) const;

  // E(theta), and with its gradient (resized to size()).
  double value(const Vector& theta);
  double gradient(const Vector& theta, Vector& gradient);

  // Passes over the rows made so far, and their analytical flop count.
  std::size_t evaluations() const { return evaluations_; }
  double flops() const { return flops_; }

 private:
  struct Buffers;
  struct Workspace;
  struct Pass;
  double run(const Vector& theta, Vector* gradient);
  std::vector<double> sum_blocks(const Pass& pass, bool& unusable);
  void block_record(const Pass& pass, const SquaredDistances& dist, const RowBlock& b,
                    Workspace& w) const;
  void activation_gradient(const Pass& pass, Buffers& q, Workspace& w) const;
  void block_features(const RowBlock& b, double* f, double* means) const;
  void feature_distances(const Pass& pass, const double* f, const double* means, std::size_t n,
                         Buffers& q, Workspace& w) const;
  void u_moments(const Pass& pass, const double* f, Buffers& q) const;
  void factored_moments(const Pass& pass, const double* f, Buffers& q) const;
  void add_moments(const Pass& pass, const double* means, const Buffers& q, Workspace& w) const;
  void assemble_gradient(const Pass& pass, const std::vector<double>& totals, Vector& g) const;
  void centre_gradient(const Centres& centres, const double* s1, double* out) const;

  const Matrix& x_;
  Matrix targets_;
  Link link_;
  const Basis& basis_;
  Centres start_;
  Matrix start_weights_;
  const WeightPenalty* penalty_;
  NetworkOptions options_;
  std::size_t m_ = 0, d_ = 0, k_ = 0;
  std::size_t centre_size_ = 0, width_size_ = 0, weight_size_ = 0, size_ = 0;
  std::size_t evaluations_ = 0;
  double flops_ = 0;
  // One row-block worker's buffers, kept from one evaluation to the next (a minimiser makes
  // hundreds, and a fresh set each time costs page faults).
  std::vector<std::unique_ptr<Workspace>> workspaces_;
  // Every block's features [y^2, y, 1], y = x - the block's column means (rows x (2d + 1)), and
  // those means (blocks x d): they do not change between evaluations, so they are kept when
  // they fit feature_cache_bytes, filled by the first pass.
  mutable Matrix features_, block_means_;
  bool features_ready_ = false;
};

}  // namespace radial::refine
