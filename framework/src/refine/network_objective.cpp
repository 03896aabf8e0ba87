// The whole network's error and gradient (radial/refine/network_objective.hpp).
#include "radial/refine/network_objective.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>
#include <vector>

#include <xtensor-blas/xblas.hpp>
#include <xtensor/xview.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/numerics/log_sum_exp.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/distributed/sharded_pass.hpp"

namespace radial::refine {

namespace {

using Index = xt::blas_index_t;

// C (m x n, row-major) = op(A) op(B) (+ C when accumulate).
void gemm(bool ta, bool tb, std::size_t m, std::size_t n, std::size_t k, const double* a,
          std::size_t lda, const double* b, std::size_t ldb, double* c, std::size_t ldc,
          bool accumulate = false) {
  cxxblas::gemm<Index>(cxxblas::RowMajor, ta ? cxxblas::Trans : cxxblas::NoTrans,
                       tb ? cxxblas::Trans : cxxblas::NoTrans, Index(m), Index(n), Index(k), 1.0,
                       a, Index(lda), b, Index(ldb), accumulate ? 1.0 : 0.0, c, Index(ldc));
}

void fit(Matrix& m, std::size_t rows, std::size_t cols) {
  if (m.dimension() != 2 || m.shape(0) != rows || m.shape(1) != cols) m.resize({rows, cols});
}

// The features' columns the moments take: [y^2, y, 1] with diagonal widths, else [y, 1].
std::size_t moment_columns(bool diag, std::size_t d) { return diag ? 2 * d + 1 : d + 1; }

// Column c of a (rows x k), summed in four running sums (no chain of dependent adds).
double column_sum(const Matrix& a, std::size_t c) {
  const std::size_t rows = a.shape(0), k = a.shape(1);
  const double* v = a.data() + c;
  double part[4] = {0, 0, 0, 0};
  for (std::size_t i = 0; i < rows; ++i) part[i % 4] += v[i * k];
  return (part[0] + part[1]) + (part[2] + part[3]);
}

// Block error and dE/dA = Y - T in place of the activations (the canonical pairs of
// radial/glm/objective.hpp, computed the same safe way: log(1 + e^a) and log-sum-exp).
double error_and_delta(const Link& link, Matrix& a, const double* t) {
  const std::size_t rows = a.shape(0), k = a.shape(1);
  double e = 0;
  if (link == Link::Identity) {
    double part[4] = {0, 0, 0, 0};  // four running sums: no chain of dependent adds
    for (std::size_t i = 0; i < rows * k; ++i) {
      const double r = a.data()[i] - t[i];
      part[i % 4] += r * r;
      a.data()[i] = r;
    }
    e = 0.5 * ((part[0] + part[1]) + (part[2] + part[3]));
  } else if (link == Link::Logistic) {
    for (std::size_t i = 0; i < rows; ++i) {
      const double v = a.data()[i];
      e += log1p_exp(v) - t[i] * v;
      a.data()[i] = sigmoid(v) - t[i];
    }
  } else {  // softmax: E = sum_n (sum_k t_nk) lse(a_n) - t_n . a_n
    for (std::size_t n = 0; n < rows; ++n) {
      double* r = a.data() + n * k;
      const double* tr = t + n * k;
      const double top = *std::max_element(r, r + k);
      double s = 0, ta = 0, tsum = 0;
      for (std::size_t c = 0; c < k; ++c) {
        s += std::exp(r[c] - top);
        ta += tr[c] * r[c];
        tsum += tr[c];
      }
      const double lse = top + std::log(s);
      e += tsum * lse - ta;
      for (std::size_t c = 0; c < k; ++c) r[c] = tsum * std::exp(r[c] - lse) - tr[c];
    }
  }
  return e;
}

}  // namespace

// One block's matrices. A worker keeps one set for full blocks and one for the short last
// block: resizing a single set there and back reallocated ~1 MB on every evaluation, and the
// heap's trim and regrowth cost page faults (zeroed huge pages) worth 10-30% of a pass.
struct NetworkObjective::Buffers {
  Matrix xb, r2, phi, dphi, a, g, f, uy;
};

struct NetworkObjective::Workspace {
  Buffers full, tail;
  std::vector<double> record, means, coefficients;
};

NetworkObjective::~NetworkObjective() = default;

WidthMode width_mode_from_string(const std::string& word) {
  if (word == "none") return WidthMode::None;
  if (word == "global") return WidthMode::Global;
  if (word == "per-centre") return WidthMode::PerCentre;
  if (word == "diagonal") return WidthMode::Diagonal;
  throw InputError("width mode \"" + word +
                   "\" is not one of none, global, per-centre, diagonal");
}

const char* to_string(WidthMode mode) {
  switch (mode) {
    case WidthMode::None: return "none";
    case WidthMode::Global: return "global";
    case WidthMode::PerCentre: return "per-centre";
    case WidthMode::Diagonal: return "diagonal";
  }
  return "none";
}

NetworkObjective::NetworkObjective(const Matrix& x, Matrix targets, Link link,
                                   const Basis& basis, Centres start, Matrix weights,
                                   const WeightPenalty* penalty, NetworkOptions options)
    : x_(x),
      targets_(std::move(targets)),
      link_(std::move(link)),
      basis_(basis),
      start_(std::move(start)),
      start_weights_(std::move(weights)),
      penalty_(penalty),
      options_(options) {
  m_ = start_.count();
  d_ = start_.dim();
  k_ = targets_.dimension() == 2 ? targets_.shape(1) : 0;
  if (!basis_.differentiable())
    throw InputError(
        "whole-network training needs the derivative of the basis, and this basis has none");
  if (!(link_ == Link::Identity || link_ == Link::Logistic || link_ == Link::Softmax))
    throw InputError("whole-network training takes the identity, logistic and softmax links, "
                     "not " + to_string(link_));
  if (link_ == Link::Logistic && k_ != 1)
    throw InputError("the logistic link has one output; the targets have " + std::to_string(k_));
  if (x_.shape(1) != d_ || targets_.shape(0) != x_.shape(0) ||
      start_weights_.shape(0) != m_ + 1 || start_weights_.shape(1) != k_)
    throw ShapeError("whole-network training: " + std::to_string(x_.shape(0)) + " x " +
                     std::to_string(x_.shape(1)) + " inputs, " +
                     std::to_string(targets_.shape(0)) + " x " + std::to_string(k_) +
                     " targets, " + std::to_string(m_) + " centres of dimension " +
                     std::to_string(d_) + " and " + std::to_string(start_weights_.shape(0)) +
                     " x " + std::to_string(start_weights_.shape(1)) + " weights do not agree");
  if (options_.widths != WidthMode::None) {
    if (basis_.metric() != Metric::Shape || !basis_.shapes_trainable())
      throw InputError(std::string("widths = \"") + to_string(options_.widths) +
                       "\", but this basis has no widths to train (a Euclidean basis, or a "
                       "density whose normalising constant moves with its shapes): use "
                       "widths = \"none\"");
    const Shape s = start_.shape;
    const bool ok = options_.widths == WidthMode::Diagonal
                        ? (s == Shape::Spherical || s == Shape::Diagonal)
                        : (s == Shape::Spherical || s == Shape::Diagonal || s == Shape::Full);
    if (!ok)
      throw InputError(std::string("widths = \"") + to_string(options_.widths) +
                       "\" cannot start from centres with " +
                       (s == Shape::Full ? "full covariances (use global or per-centre)"
                                         : "no shapes"));
  }
  centre_size_ = options_.centres ? m_ * d_ : 0;
  switch (options_.widths) {
    case WidthMode::None: width_size_ = 0; break;
    case WidthMode::Global: width_size_ = 1; break;
    case WidthMode::PerCentre: width_size_ = m_; break;
    case WidthMode::Diagonal: width_size_ = m_ * d_; break;
  }
  weight_size_ = (m_ + 1) * k_;
  size_ = centre_size_ + width_size_ + weight_size_;
}

Vector NetworkObjective::start() const {
  Vector theta = xt::zeros<double>({size_});
  if (options_.centres) std::copy(start_.means.begin(), start_.means.end(), theta.begin());
  std::copy(start_weights_.begin(), start_weights_.end(),
            theta.begin() + std::ptrdiff_t(centre_size_ + width_size_));
  return theta;
}

Centres NetworkObjective::centres_at(const Vector& theta) const {
  Centres c = start_;
  if (options_.centres) std::copy_n(theta.begin(), centre_size_, c.means.begin());
  const double* w = theta.data() + centre_size_;
  const auto factor = [&](std::size_t j) {
    return std::exp(options_.widths == WidthMode::Global ? w[0] : w[j]);
  };
  switch (options_.widths) {
    case WidthMode::None: break;
    case WidthMode::Global:
    case WidthMode::PerCentre:
      for (std::size_t j = 0; j < m_; ++j) {
        const double f = factor(j);
        if (c.shape == Shape::Spherical) c.variances(j) *= f;
        if (c.shape == Shape::Diagonal)
          for (std::size_t a = 0; a < d_; ++a) c.diagonal(j, a) *= f;
        if (c.shape == Shape::Full)
          for (std::size_t a = 0; a < d_; ++a)
            for (std::size_t b = 0; b < d_; ++b) c.covariances(j, a, b) *= f;
      }
      break;
    case WidthMode::Diagonal: {
      Matrix diagonal = Matrix::from_shape({m_, d_});
      for (std::size_t j = 0; j < m_; ++j)
        for (std::size_t a = 0; a < d_; ++a)
          diagonal(j, a) = std::exp(w[j * d_ + a]) * (start_.shape == Shape::Spherical
                                                          ? start_.variances(j)
                                                          : start_.diagonal(j, a));
      c.shape = Shape::Diagonal;
      c.variances = Vector();
      c.diagonal = std::move(diagonal);
      break;
    }
  }
  return c;
}

Matrix NetworkObjective::weights_at(const Vector& theta) const {
  Matrix w = Matrix::from_shape({m_ + 1, k_});
  std::copy_n(theta.begin() + std::ptrdiff_t(centre_size_ + width_size_), weight_size_,
              w.begin());
  return w;
}

double NetworkObjective::value(const Vector& theta) { return run(theta, nullptr); }

double NetworkObjective::gradient(const Vector& theta, Vector& gradient) {
  return run(theta, &gradient);
}

// What one evaluation computes, and where each sum sits in a block's record: E, dE/dW (data
// part), then sum_n u_nj (x_n - c_j) (centres), sum_n u_nj (x_na - c_ja)^2 (diagonal widths)
// or sum_n u_nj r2_nj (global, per centre).
struct NetworkObjective::Pass {
  const Centres& centres;
  const Matrix& w;      // (M + 1) x K
  const Matrix& w_phi;  // its first M rows
  bool gradient = false, back = false, diag = false, radial_sums = false, first_moments = false;
  // Distances by the block features (Euclidean, spherical and diagonal shapes): 1 / s_ja.
  bool features = false;
  bool block_features = false;  // features made or read: distances, or moments to take
  Matrix inverse{};
  std::size_t at_w = 1, at_s1 = 0, at_s2 = 0, at_sr = 0, width = 0;
};

double NetworkObjective::run(const Vector& theta, Vector* gradient) {
  if (theta.size() != size_)
    throw ShapeError("whole-network training: a parameter vector of " +
                     std::to_string(theta.size()) + " values, expected " +
                     std::to_string(size_));
  ++evaluations_;
  const std::size_t m = m_, d = d_, k = k_, rows = x_.shape(0);
  const Centres centres = centres_at(theta);
  const Matrix w = weights_at(theta);
  const Matrix w_phi = xt::view(w, xt::range(0, m), xt::all());
  Pass pass{centres, w, w_phi};
  pass.gradient = gradient != nullptr;
  pass.back = pass.gradient && (options_.centres || options_.widths != WidthMode::None);
  pass.diag = pass.gradient && options_.widths == WidthMode::Diagonal;
  pass.radial_sums = pass.gradient && (options_.widths == WidthMode::Global ||
                                       options_.widths == WidthMode::PerCentre);
  pass.first_moments = pass.gradient && options_.centres;
  pass.at_s1 = pass.at_w + (pass.gradient ? weight_size_ : 0);
  pass.at_s2 = pass.at_s1 + (pass.first_moments ? m * d : 0);
  pass.at_sr = pass.at_s2 + (pass.diag ? m * d : 0);
  pass.width = pass.at_sr + (pass.radial_sums ? m : 0);
  const bool euclidean = basis_.metric() == Metric::Euclidean;
  pass.features = euclidean || centres.shape == Shape::Spherical ||
                  centres.shape == Shape::Diagonal;
  pass.block_features = pass.features || (pass.back && (pass.first_moments || pass.diag));
  if (pass.features) {
    pass.inverse = xt::ones<double>({m, d});
    for (std::size_t j = 0; j < m && !euclidean; ++j)
      for (std::size_t a = 0; a < d; ++a)
        pass.inverse(j, a) = 1.0 / (centres.shape == Shape::Spherical ? centres.variances(j)
                                                                      : centres.diagonal(j, a));
  }

  bool unusable = false;  // shapes a line search tried that are not positive definite
  const std::vector<double> totals = sum_blocks(pass, unusable);
  const double dm = double(m), dd = double(d), dk = double(k), dn = double(rows);
  flops_ += dn * dm * (3.0 * dd + 2.0 * dk + 4.0) +
            (pass.gradient ? 2.0 * dn * dm * dk : 0.0) +
            (pass.back
                 ? 2.0 * dn * dm * dk + dn * dm * (1.0 + 2.0 * dd * (pass.diag ? 2.0 : 1.0))
                 : 0.0);
  if (unusable) {
    if (gradient) *gradient = xt::zeros<double>({size_});
    return std::numeric_limits<double>::infinity();
  }
  const double e = totals[0] + (penalty_ ? penalty_->penalty(w) : 0.0);
  if (gradient) assemble_gradient(pass, totals, *gradient);
  return e;
}

// Every block's record, summed in block order over the rows of every rank (the same bits for
// any thread count; across ranks a fold of the per-block records while they are small).
// `unusable` when the shapes are not positive definite (every rank agrees: same parameters).
std::vector<double> NetworkObjective::sum_blocks(const Pass& pass, bool& unusable) {
  const std::size_t rows = x_.shape(0);
  std::vector<double> totals(pass.width, 0.0);
  std::vector<double> records;  // per block, when the sum continues over ranks
  const bool ranks = collectives().size() > 1;
  const std::size_t blocks = row_block_count(rows, options_.block_rows);
  const bool fold = ranks && blocks * pass.width * sizeof(double) <= (std::size_t(128) << 20);
  std::exception_ptr failure;
  try {
    std::optional<SquaredDistances> dist;
    try {
      dist.emplace(pass.centres, basis_.metric());
    } catch (const ShapeError&) {
      unusable = true;
    }
    if (!unusable) {
      const std::size_t p = 2 * d_ + 1;
      if (pass.block_features && !features_ready_ &&
          rows * (p + d_) * sizeof(double) <= options_.feature_cache_bytes &&
          features_.size() != rows * p) {
        features_ = Matrix::from_shape({rows, p});
        block_means_ = Matrix::from_shape({blocks, d_});
      }
      const std::size_t workers = worker_count(rows, options_.block_rows, options_.threads);
      while (workspaces_.size() < workers) workspaces_.push_back(std::make_unique<Workspace>());
      std::size_t next = 0;
      ordered_reduce<Workspace*>(
          rows, options_.block_rows, options_.threads,
          [&] { return workspaces_.at(next++).get(); },
          [&](const RowBlock& b, Workspace*& workspace) {
            block_record(pass, *dist, b, *workspace);
          },
          [&](const RowBlock&, Workspace*& workspace) {
            const Workspace& q = *workspace;
            if (fold) {
              records.insert(records.end(), q.record.begin(), q.record.end());
            } else {
              for (std::size_t i = 0; i < pass.width; ++i) totals[i] += q.record[i];
            }
          });
      if (pass.block_features) features_ready_ = features_.size() == rows * p;
    }
  } catch (...) {
    failure = std::current_exception();
  }
  if (ranks) {
    if (fold)
      totals = fold_blocks_over_ranks(records, pass.width, failure);
    else
      sum_pass_over_ranks(totals, failure);
  } else if (failure) {
    std::rethrow_exception(failure);
  }
  return totals;
}

// One block's record: the forward pass and error, dE/dW, then (centres or widths trained) U and
// the moments it is multiplied by.
void NetworkObjective::block_record(const Pass& pass, const SquaredDistances& dist,
                                    const RowBlock& b, Workspace& w) const {
  const std::size_t m = m_, d = d_, k = k_, n = b.count, p = 2 * d + 1;
  Buffers& q = n == options_.block_rows ? w.full : w.tail;
  w.record.assign(pass.width, 0.0);
  const double* f = nullptr;
  const double* means = nullptr;
  if (pass.block_features) {
    if (features_ready_) {
      f = features_.data() + b.first * p;
      means = block_means_.data() + b.index * d;
    } else {
      double* fo;
      double* mo;
      if (features_.size() != 0) {
        fo = features_.data() + b.first * p;
        mo = block_means_.data() + b.index * d;
      } else {
        fit(q.f, n, p);
        fo = q.f.data();
        w.means.resize(d);
        mo = w.means.data();
      }
      block_features(b, fo, mo);
      f = fo;
      means = mo;
    }
  }
  if (pass.features) {
    feature_distances(pass, f, means, n, q, w);
  } else {
    fit(q.xb, n, d);
    std::copy_n(x_.data() + b.first * d, n * d, q.xb.data());
    dist.compute(q.xb, q.r2);
    q.phi = q.r2;
  }
  basis_.map(q.phi);
  fit(q.a, n, k);
  gemm(false, false, n, k, m, q.phi.data(), m, pass.w.data(), k, q.a.data(), k);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < k; ++c) q.a(i, c) += pass.w(m, c);
  w.record[0] = error_and_delta(link_, q.a, targets_.data() + b.first * k);
  if (!pass.gradient) return;
  // dE/dW = [Phi 1]^T (Y - T)
  gemm(true, false, m, k, n, q.phi.data(), m, q.a.data(), k, w.record.data() + pass.at_w, k);
  for (std::size_t c = 0; c < k; ++c) w.record[pass.at_w + m * k + c] += column_sum(q.a, c);
  if (!pass.back) return;
  const bool moments = pass.first_moments || pass.diag;
  if (k == 1 && !pass.radial_sums) {
    factored_moments(pass, f, q);  // the centres or the diagonal widths are trained
  } else {
    activation_gradient(pass, q, w);
    if (moments) u_moments(pass, f, q);
  }
  if (moments) add_moments(pass, means, q, w);
}

// The block's features [y^2, y, 1] with y = x - mu (n x (2d + 1)) and mu, its column means.
// Distances and moments about mu, near the rows, lose nothing to where the data sit.
void NetworkObjective::block_features(const RowBlock& b, double* f, double* means) const {
  const std::size_t d = d_, p = 2 * d + 1, n = b.count;
  const double* x = x_.data() + b.first * d;
  std::fill(means, means + d, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < d; ++a) means[a] += x[i * d + a];
  for (std::size_t a = 0; a < d; ++a) means[a] /= double(n);
  for (std::size_t i = 0; i < n; ++i) {
    double* row = f + i * p;
    for (std::size_t a = 0; a < d; ++a) {
      const double y = x[i * d + a] - means[a];
      row[a] = y * y;
      row[d + a] = y;
    }
    row[2 * d] = 1.0;
  }
}

// r2_nj = sum_a (y_na - e_ja)^2 / s_ja with e_j = c_j - mu: the features times the block's
// coefficients [1 / s_j; -2 e_j / s_j; sum_a e_ja^2 / s_ja], clamped at 0; phi starts as a copy.
void NetworkObjective::feature_distances(const Pass& pass, const double* f, const double* means,
                                         std::size_t n, Buffers& q, Workspace& w) const {
  const std::size_t m = m_, d = d_, p = 2 * d + 1;
  w.coefficients.assign(p * m, 0.0);
  double* c = w.coefficients.data();
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t a = 0; a < d; ++a) {
      const double inv = pass.inverse(j, a), e = pass.centres.means(j, a) - means[a];
      c[a * m + j] = inv;
      c[(d + a) * m + j] = -2.0 * e * inv;
      c[2 * d * m + j] += e * e * inv;
    }
  fit(q.r2, n, m);
  fit(q.phi, n, m);
  // Clamped at 0 (the identity can round slightly below 0 for x close to c_j).
  small_gemm_clamped(n, m, p, f, p, 1, c, m, q.r2.data(), q.phi.data(), m);
}

// U = ((Y - T) W_phi^T) o phi'(r2), in q.g, and (global and per-centre widths)
// sum_n u_nj r2_nj, in one pass over the block.
void NetworkObjective::activation_gradient(const Pass& pass, Buffers& q, Workspace& w) const {
  const std::size_t m = m_, k = k_, n = q.r2.shape(0);
  basis_.map_derivative(q.r2, q.phi, q.dphi);
  fit(q.g, n, m);
  if (k > 4)  // many outputs: the product by BLAS first
    gemm(false, true, n, m, k, q.a.data(), k, pass.w_phi.data(), k, q.g.data(), m);
  double* __restrict radial_out = w.record.data() + pass.at_sr;
  for (std::size_t i = 0; i < n; ++i) {
    const double* __restrict dphi = &q.dphi(i, 0);
    const double* __restrict r2 = &q.r2(i, 0);
    double* __restrict u = &q.g(i, 0);
    if (k == 1) {  // W_phi is one contiguous column
      const double delta = q.a(i, 0);
      const double* __restrict wj = pass.w_phi.data();
      for (std::size_t j = 0; j < m; ++j) u[j] = delta * wj[j] * dphi[j];
    } else if (k <= 4) {
      const double* delta = &q.a(i, 0);
      for (std::size_t j = 0; j < m; ++j) {
        double gij = 0;
        for (std::size_t c = 0; c < k; ++c) gij += delta[c] * pass.w_phi(j, c);
        u[j] = gij * dphi[j];
      }
    } else {
      for (std::size_t j = 0; j < m; ++j) u[j] *= dphi[j];
    }
    if (pass.radial_sums)
      for (std::size_t j = 0; j < m; ++j) radial_out[j] += u[j] * r2[j];
  }
}

// q.uy = U^T [y^2, y, 1] (or U^T [y, 1]): the moments' sums and U's column sums, one product.
void NetworkObjective::u_moments(const Pass& pass, const double* f, Buffers& q) const {
  const std::size_t m = m_, d = d_, n = q.g.shape(0), p = 2 * d + 1;
  const std::size_t cols = moment_columns(pass.diag, d);
  fit(q.uy, m, cols);
  gemm(true, false, m, cols, n, q.g.data(), m, f + (p - cols), p, q.uy.data(), cols);
}

// The same sums for one output without forming U: u_nj = delta_n w_j phi'_nj, so
// U^T F = diag(w) phi'^T (delta o F), a product with the n x (2d + 1) scaled features in place
// of the n x M pass that makes U.
void NetworkObjective::factored_moments(const Pass& pass, const double* f, Buffers& q) const {
  const std::size_t m = m_, d = d_, n = q.r2.shape(0), p = 2 * d + 1;
  const std::size_t cols = moment_columns(pass.diag, d), skip = p - cols;
  basis_.map_derivative(q.r2, q.phi, q.dphi);
  fit(q.g, n, cols);
  for (std::size_t i = 0; i < n; ++i) {
    const double delta = q.a(i, 0);
    const double* __restrict from = f + i * p + skip;
    double* __restrict to = &q.g(i, 0);
    for (std::size_t c = 0; c < cols; ++c) to[c] = delta * from[c];
  }
  fit(q.uy, m, cols);
  gemm(true, false, m, cols, n, q.dphi.data(), m, q.g.data(), cols, q.uy.data(), cols);
  for (std::size_t j = 0; j < m; ++j) {
    const double wj = pass.w_phi(j, 0);
    for (std::size_t c = 0; c < cols; ++c) q.uy(j, c) *= wj;
  }
}

// sum_n u_nj (x_n - c_j) and (diagonal widths) sum_n u_nj (x_n - c_j)^2 from q.uy, about the
// block's column means mu: y = x - mu, e_j = c_j - mu, so that sum u (x - c) = U^T y - e colsum
// and sum u (x - c)^2 = U^T y^2 - 2 e U^T y + e^2 colsum, with no cancellation from where the
// data sit.
void NetworkObjective::add_moments(const Pass& pass, const double* means, const Buffers& q,
                                   Workspace& w) const {
  const std::size_t m = m_, d = d_;
  const std::size_t cols = moment_columns(pass.diag, d);
  const std::size_t at_y = pass.diag ? d : 0;  // U^T y's first column in uy
  for (std::size_t j = 0; j < m; ++j) {
    const double colsum = q.uy(j, cols - 1);
    for (std::size_t a = 0; a < d; ++a) {
      const double e = pass.centres.means(j, a) - means[a], uy = q.uy(j, at_y + a);
      if (pass.first_moments) w.record[pass.at_s1 + j * d + a] = uy - e * colsum;
      if (pass.diag)
        w.record[pass.at_s2 + j * d + a] = q.uy(j, a) - 2.0 * e * uy + e * e * colsum;
    }
  }
}

// The gradient from the summed records: the weights' (with the penalty's), the centres'
// -2 S_j^{-1} sum_n u_nj (x_n - c_j), and the log widths'.
void NetworkObjective::assemble_gradient(const Pass& pass, const std::vector<double>& totals,
                                         Vector& g) const {
  const std::size_t m = m_, k = k_;
  g = xt::zeros<double>({size_});
  Matrix gw = Matrix::from_shape({m + 1, k});
  std::copy_n(totals.data() + pass.at_w, weight_size_, gw.data());
  if (penalty_) penalty_->add_gradient(pass.w, gw);
  std::copy(gw.begin(), gw.end(), g.begin() + std::ptrdiff_t(centre_size_ + width_size_));
  if (pass.first_moments) centre_gradient(pass.centres, totals.data() + pass.at_s1, g.data());
  double* gt = g.data() + centre_size_;
  if (options_.widths == WidthMode::Global) {
    for (std::size_t j = 0; j < m; ++j) gt[0] -= totals[pass.at_sr + j];
  } else if (options_.widths == WidthMode::PerCentre) {
    for (std::size_t j = 0; j < m; ++j) gt[j] = -totals[pass.at_sr + j];
  } else if (options_.widths == WidthMode::Diagonal) {
    for (std::size_t j = 0; j < m; ++j)
      for (std::size_t a = 0; a < d_; ++a)
        gt[j * d_ + a] = -totals[pass.at_s2 + j * d_ + a] / pass.centres.diagonal(j, a);
  }
}

// dE/dc_j = -2 S_j^{-1} s1_j (s1: sum_n u_nj (x_n - c_j), m x d), by shape.
void NetworkObjective::centre_gradient(const Centres& centres, const double* s1,
                                       double* out_all) const {
  const std::size_t m = m_, d = d_;
  const bool euclidean = basis_.metric() == Metric::Euclidean;
  for (std::size_t j = 0; j < m; ++j) {
    double* out = out_all + j * d;
    const double* v = s1 + j * d;
    if (euclidean || centres.shape == Shape::None) {
      for (std::size_t a = 0; a < d; ++a) out[a] = -2.0 * v[a];
    } else if (centres.shape == Shape::Spherical) {
      for (std::size_t a = 0; a < d; ++a) out[a] = -2.0 * v[a] / centres.variances(j);
    } else if (centres.shape == Shape::Diagonal) {
      for (std::size_t a = 0; a < d; ++a) out[a] = -2.0 * v[a] / centres.diagonal(j, a);
    } else {
      // S_j z = v by Cholesky (S_j is positive definite: SquaredDistances checked it).
      Matrix l = xt::view(centres.covariances, j, xt::all(), xt::all());
      for (std::size_t c = 0; c < d; ++c) {
        for (std::size_t r = 0; r < c; ++r) l(c, c) -= l(c, r) * l(c, r);
        l(c, c) = std::sqrt(l(c, c));
        for (std::size_t r = c + 1; r < d; ++r) {
          for (std::size_t q = 0; q < c; ++q) l(r, c) -= l(r, q) * l(c, q);
          l(r, c) /= l(c, c);
        }
      }
      std::vector<double> z(v, v + d);
      for (std::size_t r = 0; r < d; ++r) {
        for (std::size_t q = 0; q < r; ++q) z[r] -= l(r, q) * z[q];
        z[r] /= l(r, r);
      }
      for (std::size_t r = d; r-- > 0;) {
        for (std::size_t q = r + 1; q < d; ++q) z[r] -= l(q, r) * z[q];
        z[r] /= l(r, r);
      }
      for (std::size_t a = 0; a < d; ++a) out[a] = -2.0 * z[a];
    }
  }
}

}  // namespace radial::refine
