// The GLM error over the design matrix, block by block (see radial/glm/objective.hpp).
#include "radial/glm/objective.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/distributed/sharded_pass.hpp"
#include "radial/exec/parallel.hpp"
#include "radial/glm/flops.hpp"
#include "radial/numerics/vector_math.hpp"
#include "radial/network/weight_penalty.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "syrk.hpp"
#include "thin_products.hpp"
#include "targets.hpp"

namespace radial::glm {

namespace {

std::string shape_text(const Matrix& m) {
  return std::to_string(m.shape(0)) + " x " + std::to_string(m.shape(1));
}

void check_link(Link link, std::size_t outputs) {
  if (link != Link::Identity && link != Link::Logistic && link != Link::Softmax)
    throw InputError("glm objective: link '" + to_string(link) + "' is not a canonical GLM "
                     "link; the objective trains link identity, logistic or softmax");
  if (link == Link::Logistic && outputs != 1)
    throw InputError("glm objective: the logistic link takes one target column (2 classes), "
                     "found " + std::to_string(outputs) +
                     "; use link = \"softmax\" for more than 2 classes");
  if (link == Link::Softmax && outputs < 2)
    throw InputError("glm objective: the softmax link needs at least 2 target columns, found " +
                     std::to_string(outputs) + "; use link = \"logistic\" for 2 classes");
  if (outputs == 0) throw InputError("glm objective: the targets have no columns");
}

// Per-element cost of the link and its error (see the loops below): logistic = exp, log1p and
// 8 arithmetic operations; softmax = 7 per entry plus one log per row; identity = 3.
double link_flops(Link link, std::size_t rows, std::size_t outputs) {
  const double n = double(rows), k = double(outputs);
  if (link == Link::Logistic) return 10.0 * n * k;
  if (link == Link::Softmax) return n * (7.0 * k + 1.0);
  return 3.0 * n * k;
}

// The block's outputs Y = link(A) in y (b x K) and its error (1/2 SSE or the cross-entropy),
// computed without overflow.
double block_outputs(const Link& link, const double* a, const double* t, std::size_t b,
                     std::size_t k_out, double* y, std::vector<double>& aux) {
  const std::size_t bk = b * k_out;
  double error = 0;
  if (link == Link::Identity) {
    for (std::size_t i = 0; i < bk; ++i) {
      const double r = a[i] - t[i];
      y[i] = a[i];
      error += 0.5 * r * r;
    }
  } else if (link == Link::Logistic) {
    // u = e^-|a|;  ln(1 + e^a) = max(a, 0) + ln(1 + u);  E = ln(1 + e^a) - t a.
    aux.resize(bk);
    for (std::size_t i = 0; i < bk; ++i) aux[i] = -std::fabs(a[i]);
    exp_in_place(aux.data(), bk);
    for (std::size_t i = 0; i < bk; ++i) {
      const double u = aux[i];
      error += std::max(a[i], 0.0) + std::log1p(u) - t[i] * a[i];
      y[i] = a[i] >= 0 ? 1.0 / (1.0 + u) : u / (1.0 + u);
    }
  } else {  // softmax; other links are refused in the constructor
    // Log-sum-exp per row: y_k = e^(a_k - m) / s, E = sum_k t_k (m + ln s - a_k).
    for (std::size_t n = 0; n < b; ++n) {
      const double* an = a + n * k_out;
      double m = an[0];
      for (std::size_t k = 1; k < k_out; ++k) m = std::max(m, an[k]);
      for (std::size_t k = 0; k < k_out; ++k) y[n * k_out + k] = an[k] - m;
    }
    exp_in_place(y, bk);
    for (std::size_t n = 0; n < b; ++n) {
      double s = 0;
      double* yn = y + n * k_out;
      for (std::size_t k = 0; k < k_out; ++k) s += yn[k];
      const double* an = a + n * k_out;
      double m = an[0];
      for (std::size_t k = 1; k < k_out; ++k) m = std::max(m, an[k]);
      const double lse = m + std::log(s);
      const double* tn = t + n * k_out;
      for (std::size_t k = 0; k < k_out; ++k) {
        yn[k] /= s;
        if (tn[k] != 0) error += tn[k] * (lse - an[k]);
      }
    }
  }
  return error;
}

// Adds the block's Hessian blocks H_kl = Phi^T diag(c_kl) Phi to `blocks` (index k K + l; one
// block for the identity link) from the outputs y; returns the flops. `scaled` is scratch.
double add_hessian_blocks(const Link& link, bool exact, const Matrix& phi, const double* y,
                          std::size_t k_out, Matrix& scaled, std::vector<Matrix>& blocks) {
  const std::size_t b = phi.shape(0), c = phi.shape(1);
  double flops = 0;
  if (link == Link::Identity) {
    detail::add_gram(phi.data(), b, c, blocks[0].data());  // Phi^T Phi
    return double(c) * double(c + 1) * double(b);
  }
  if (scaled.shape(0) != b || scaled.shape(1) != c) scaled.resize({b, c});
  for (std::size_t k = 0; k < k_out; ++k)
    for (std::size_t l = k; l < k_out; ++l) {
      if (!exact && l != k) continue;
      // c_n,kl = y_nk (delta_kl - y_nl)   (eq. 13; logistic: y (1 - y)). Diagonal blocks
      // have c >= 0: (sqrt(c) Phi)^T (sqrt(c) Phi) by a symmetric rank-k update.
      const bool diagonal = k == l;
      for (std::size_t n = 0; n < b; ++n) {
        const double ynk = y[n * k_out + k], ynl = y[n * k_out + l];
        double w = ynk * ((diagonal ? 1.0 : 0.0) - ynl);
        if (diagonal) w = std::sqrt(std::max(w, 0.0));
        const double* src = phi.data() + n * c;
        double* dst = scaled.data() + n * c;
        for (std::size_t j = 0; j < c; ++j) dst[j] = w * src[j];
      }
      Matrix& target = blocks[k * k_out + l];
      if (diagonal) {
        detail::add_gram(scaled.data(), b, c, target.data());
        flops += 3.0 * double(b) + double(b) * double(c) + double(c) * double(c + 1) * double(b);
      } else {
        small_gemm(c, c, b, phi.data(), 1, c, scaled.data(), c, target.data(), c,
                   true);  // H_kl += Phi^T diag(c_kl) Phi
        flops += 2.0 * double(b) + double(b) * double(c) + flops::gemm(c, c, b);
      }
    }
  return flops;
}

// The full (C K) x (C K) Hessian, interleaved by output as the weights are, from its blocks.
Matrix assemble_hessian(const Link& link, bool exact, const std::vector<Matrix>& blocks,
                        std::size_t c, std::size_t k_out) {
  Matrix h = xt::zeros<double>({c * k_out, c * k_out});
  for (std::size_t k = 0; k < k_out; ++k)
    for (std::size_t l = k; l < k_out; ++l) {
      const Matrix* blk = nullptr;
      if (link == Link::Identity) {
        if (k != l) continue;
        blk = &blocks[0];
      } else {
        if (!exact && l != k) continue;
        blk = &blocks[k * k_out + l];
      }
      for (std::size_t i = 0; i < c; ++i)
        for (std::size_t j = 0; j < c; ++j) {
          const double v = (*blk)(i, j);
          h(i * k_out + k, j * k_out + l) = v;
          h(j * k_out + l, i * k_out + k) = v;
        }
    }
  return h;
}

// The pass's totals over every rank: E, the flops, the gradient and the Hessian blocks, from
// the per-block records (the one-process fold continued) or from each rank's sums.
void total_over_ranks(bool fold_records, const std::vector<double>& records,
                      std::size_t record_width, std::exception_ptr failure, double& error,
                      double& pass_flops, Matrix* gradient, std::vector<Matrix>& blocks) {
  if (fold_records) {
    const std::vector<double> total = fold_blocks_over_ranks(records, record_width, failure);
    error = total[0];
    pass_flops = total[1];
    const double* from = total.data() + 2;
    if (gradient) {
      std::copy_n(from, gradient->size(), gradient->data());
      from += gradient->size();
    }
    for (Matrix& blk : blocks)
      if (blk.size()) {
        std::copy_n(from, blk.size(), blk.data());
        from += blk.size();
      }
  } else {
    // All rows: E, the flops, the gradient and the Hessian blocks in one rank-ordered sum.
    std::vector<Matrix*> arrays;
    if (gradient) arrays.push_back(gradient);
    for (Matrix& blk : blocks)
      if (blk.size()) arrays.push_back(&blk);
    std::vector<double> packed{error, pass_flops};
    for (const Matrix* m : arrays) packed.insert(packed.end(), m->begin(), m->end());
    sum_pass_over_ranks(packed, failure);
    error = packed[0];
    pass_flops = packed[1];
    const double* from = packed.data() + 2;
    for (Matrix* m : arrays) {
      std::copy_n(from, m->size(), m->data());
      from += m->size();
    }
  }
}

}  // namespace

void Objective::check_and_count(const std::function<void()>& local_checks) {
  agreed(local_checks);
  total_rows_ = std::size_t(count_over_ranks(rows_));
  const std::size_t block_rows = design_ ? design_->block_rows() : objective_block_rows;
  max_blocks_ = std::size_t(max_over_ranks(double(row_block_count(rows_, block_rows))));
}

Objective::Objective(const DesignMatrix& design, Matrix targets, Link link,
                     const WeightPenalty* penalty)
    : design_(&design), cols_(design.cols()), targets_(std::move(targets)), link_(link) {
  rows_ = targets_.shape(0);
  outputs_ = targets_.shape(1);
  check_and_count([&] {
    if (design.rows() != targets_.shape(0))
      throw ShapeError("glm objective: the design matrix has " + std::to_string(design.rows()) +
                       " rows but the targets have " + std::to_string(targets_.shape(0)));
    check_link(link_, outputs_);
  });
  penalty_ = penalty;
}

Objective::Objective(const DesignMatrix& design, const Dataset& data, Link link,
                     const WeightPenalty* penalty)
    : design_(&design), cols_(design.cols()), rows_(data.rows()), data_(&data), link_(link) {
  check_and_count([&] {
    outputs_ = detail::target_columns(link, data);
    const std::size_t coded =
        data.task == Task::Regression ? data.values.size() : data.classes.size();
    if (design.rows() != rows_ || coded != rows_)
      throw ShapeError("glm objective: the design matrix has " + std::to_string(design.rows()) +
                       " rows but the targets have " + std::to_string(coded));
    check_link(link_, outputs_);
  });
  penalty_ = penalty;
}

Objective::Objective(Matrix design, Matrix targets, Link link, const WeightPenalty* penalty)
    : phi_(std::move(design)), cols_(phi_.shape(1)), targets_(std::move(targets)), link_(link) {
  rows_ = targets_.shape(0);
  outputs_ = targets_.shape(1);
  check_and_count([&] {
    if (phi_.shape(0) != targets_.shape(0))
      throw ShapeError("glm objective: the design matrix has " + std::to_string(phi_.shape(0)) +
                       " rows but the targets have " + std::to_string(targets_.shape(0)));
    check_link(link_, outputs_);
  });
  penalty_ = penalty;
}

const double* Objective::target_rows(std::size_t first, std::size_t count,
                                     Matrix& buffer) const {
  if (!data_) return targets_.data() + first * outputs_;
  if (buffer.shape(0) != count || buffer.shape(1) != outputs_) buffer.resize({count, outputs_});
  detail::fill_targets(link_, *data_, first, count, buffer.data());
  return buffer.data();
}

void Objective::targets_block(std::size_t first, std::size_t count, Matrix& out) const {
  if (first > rows_ || count > rows_ - first)
    throw ShapeError("glm objective: target rows [" + std::to_string(first) + ", " +
                     std::to_string(first + count) + ") are outside the " +
                     std::to_string(rows_) + " rows");
  if (out.shape(0) != count || out.shape(1) != outputs_) out.resize({count, outputs_});
  if (data_) {
    detail::fill_targets(link_, *data_, first, count, out.data());
  } else {
    std::copy_n(targets_.data() + first * outputs_, count * outputs_, out.data());
  }
}

namespace {
void add_to(Matrix& total, const Matrix& part) {
  double* t = total.data();
  const double* f = part.data();
  for (std::size_t i = 0, e = part.size(); i < e; ++i) t[i] += f[i];
}
}  // namespace

int Objective::threads() const { return design_ ? design_->threads() : threads_; }

std::size_t Objective::reduce_workers() const {
  return design_ ? worker_count(design_->rows(), design_->block_rows(), design_->threads())
                 : worker_count(phi_.shape(0), objective_block_rows, threads_);
}

void Objective::reduce_blocks(
    const std::function<void(std::size_t, std::size_t, const Matrix&)>& work,
    const std::function<void(std::size_t, std::size_t)>& combine) const {
  if (design_) {
    design_->reduce_blocks(work, combine);
    return;
  }
  const std::size_t n = phi_.shape(0);
  if (n <= objective_block_rows) {
    work(0, 0, phi_);
    combine(0, 0);
    return;
  }
  // Each worker copies its block of Phi (the passes take blocks as matrices).
  std::vector<Matrix> blocks(reduce_workers());
  parallel_reduce_blocks(
      n, objective_block_rows, threads_,
      [&](std::size_t w, const RowBlock& b) {
        Matrix& block = blocks[w];
        if (block.shape(0) != b.count || block.shape(1) != cols_) block.resize({b.count, cols_});
        std::copy_n(phi_.data() + b.first * cols_, b.count * cols_, block.data());
        work(w, b.first, block);
      },
      [&](std::size_t w, const RowBlock& b) { combine(w, b.first); });
}

void Objective::every_nth_block(std::size_t stride, Matrix& design, Matrix& targets) const {
  if (stride == 0) throw InputError("glm objective: a block stride of 0");
  const std::size_t block_rows = design_ ? design_->block_rows() : objective_block_rows;
  const std::size_t first_row = shard_layout(rows_).first;
  const auto kept = [&](std::size_t first) {
    return ((first_row + first) / block_rows) % stride == 0;
  };
  std::size_t count = 0;
  for (std::size_t first = 0; first < rows_; first += block_rows)
    if (kept(first)) count += std::min(block_rows, rows_ - first);
  design = Matrix::from_shape({count, cols_});
  targets = Matrix::from_shape({count, outputs_});
  std::size_t at = 0;
  Matrix t;
  for_each_block([&](std::size_t first, const Matrix& phi) {  // blocks of block_rows rows
    if (!kept(first)) return;
    const std::size_t b = phi.shape(0);
    std::copy_n(phi.data(), b * cols_, design.data() + at * cols_);
    targets_block(first, b, t);
    std::copy_n(t.data(), t.size(), targets.data() + at * outputs_);
    at += b;
  });
}

void Objective::for_each_block(
    const std::function<void(std::size_t, const Matrix&)>& visit) const {
  if (design_) {
    design_->for_each_block(visit);
    return;
  }
  const std::size_t n = phi_.shape(0);
  if (n <= objective_block_rows) {
    visit(0, phi_);
    return;
  }
  Matrix block;
  for (std::size_t first = 0; first < n; first += objective_block_rows) {
    const std::size_t count = std::min(objective_block_rows, n - first);
    if (block.shape(0) != count || block.shape(1) != cols_) block.resize({count, cols_});
    const double* src = phi_.data() + first * cols_;
    std::copy(src, src + count * cols_, block.data());
    visit(first, block);
  }
}

void Objective::check_weights(const Matrix& weights) const {
  if (weights.shape(0) != cols_ || weights.shape(1) != outputs())
    throw ShapeError("glm objective: weights are " + shape_text(weights) + ", expected " +
                     std::to_string(cols_) + " x " + std::to_string(outputs()) +
                     " (basis functions + bias, by outputs)");
}

namespace {

// Hessian blocks H_kl = Phi^T diag(c_kl) Phi, stored for l >= k (or k = l) at k K + l, each
// C x C and zero; one block for the identity link.
std::vector<Matrix> hessian_layout(const Link& link, bool exact, std::size_t c, std::size_t k_out) {
  std::vector<Matrix> blocks(link == Link::Identity ? 1 : k_out * k_out);
  for (std::size_t k = 0; k < k_out; ++k)
    for (std::size_t l = k; l < k_out; ++l) {
      const bool needed = link == Link::Identity ? (k == 0 && l == 0) : (exact || k == l);
      if (needed) blocks[link == Link::Identity ? 0 : k * k_out + l] = xt::zeros<double>({c, c});
    }
  return blocks;
}

}  // namespace

// One worker's sums for the row block it last computed, and its scratch.
struct Objective::Pass {
  double error = 0, flops = 0;
  Matrix gradient;
  std::vector<Matrix> blocks;
  Matrix act, resid, scaled, t_block;
  std::vector<double> aux;
};

// One row block: A = Phi W, the outputs and error, then the Hessian blocks and Phi^T (Y - T).
void Objective::block_pass(const Matrix& weights, bool exact, bool gradient, bool hessian,
                           std::size_t first, const Matrix& phi, Pass& part) const {
  const std::size_t c = cols_, k_out = outputs();
  Matrix &act = part.act, &resid = part.resid;
  part.error = 0;
  part.flops = 0;
  for (Matrix& blk : part.blocks) std::fill(blk.begin(), blk.end(), 0.0);
  const std::size_t b = phi.shape(0);
  if (act.shape(0) != b || act.shape(1) != k_out) {
    act.resize({b, k_out});
    resid.resize({b, k_out});
  }
  detail::times_weights(phi.data(), b, c, weights.data(), k_out, act.data());  // A = Phi W
  part.flops += flops::gemm(b, k_out, c);
  const double* t = target_rows(first, b, part.t_block);
  double* y = resid.data();  // outputs first, residuals after
  const std::size_t bk = b * k_out;
  part.error = block_outputs(link_, act.data(), t, b, k_out, y, part.aux);
  part.flops += link_flops(link_, b, k_out);
  if (hessian)
    part.flops += add_hessian_blocks(link_, exact, phi, y, k_out, part.scaled, part.blocks);
  if (gradient) {
    for (std::size_t i = 0; i < bk; ++i) y[i] -= t[i];  // Y - T
    if (part.gradient.shape(0) != c || part.gradient.shape(1) != k_out)
      part.gradient.resize({c, k_out});
    detail::transpose_times(phi.data(), b, c, y, k_out, part.gradient.data());  // Phi^T (Y - T)
    part.flops += double(bk) + flops::gemm(c, k_out, b);
  }
}

// One row block of the Hessian-vector product: A = Phi W and Y = link(A) as block_pass makes
// them, B = Phi V, U = C(Y) B row by row (eq. 13), then Phi^T U into part.gradient.
void Objective::block_product(const Matrix& weights, const Matrix& direction, bool exact,
                              std::size_t first, const Matrix& phi, Pass& part) const {
  const std::size_t c = cols_, k_out = outputs();
  Matrix &act = part.act, &resid = part.resid, &along = part.scaled;
  part.error = 0;
  part.flops = 0;
  const std::size_t b = phi.shape(0);
  if (act.shape(0) != b || act.shape(1) != k_out) {
    act.resize({b, k_out});
    resid.resize({b, k_out});
  }
  if (along.shape(0) != b || along.shape(1) != k_out) along.resize({b, k_out});
  detail::times_weights(phi.data(), b, c, weights.data(), k_out, act.data());  // A = Phi W
  detail::times_weights(phi.data(), b, c, direction.data(), k_out, along.data());  // B = Phi V
  part.flops += 2 * flops::gemm(b, k_out, c);
  const double* t = target_rows(first, b, part.t_block);
  double* y = resid.data();
  block_outputs(link_, act.data(), t, b, k_out, y, part.aux);  // the error is not needed
  part.flops += link_flops(link_, b, k_out);
  double* u = act.data();  // A is spent: U in its place
  const double* bv = along.data();
  const std::size_t bk = b * k_out;
  if (link_ == Link::Identity) {
    std::copy_n(bv, bk, u);
  } else if (link_ == Link::Logistic || !exact) {
    for (std::size_t i = 0; i < bk; ++i) u[i] = y[i] * (1.0 - y[i]) * bv[i];
    part.flops += 3.0 * double(bk);
  } else {
    // U_nk = sum_l y_nk (delta_kl - y_nl) B_nl = y_nk (B_nk - sum_l y_nl B_nl).
    for (std::size_t n = 0; n < b; ++n) {
      const double* yn = y + n * k_out;
      const double* bn = bv + n * k_out;
      double mean = 0;
      for (std::size_t l = 0; l < k_out; ++l) mean += yn[l] * bn[l];
      for (std::size_t k = 0; k < k_out; ++k) u[n * k_out + k] = yn[k] * (bn[k] - mean);
    }
    part.flops += 4.0 * double(bk);
  }
  if (part.gradient.shape(0) != c || part.gradient.shape(1) != k_out)
    part.gradient.resize({c, k_out});
  detail::transpose_times(phi.data(), b, c, u, k_out, part.gradient.data());  // Phi^T U
  part.flops += flops::gemm(c, k_out, b);
}

// The penalty's value, gradient and Hessian added to the data terms.
void Objective::add_penalty_terms(const Matrix& weights, Matrix* gradient, Matrix* hessian,
                                  double& error, double& flops) const {
  const std::size_t p = size();
  error += penalty_->penalty(weights);
  flops += flops::dot(p);
  if (gradient) {
    penalty_->add_gradient(weights, *gradient);
    flops += flops::axpy(p);
  }
  if (hessian) {
    penalty_->add_hessian(weights, *hessian);
    flops += double(p);
  }
}

// One pass over the rows. Returns the data error; adds its flops to `flops`.
double Objective::run(const Matrix& weights, Matrix* gradient, Matrix* hessian,
                      HessianKind kind, bool with_penalty, double& flops) const {
  check_weights(weights);
  const std::size_t c = cols_, k_out = outputs();
  const bool exact = kind == HessianKind::Exact;
  double error = 0;

  if (gradient) *gradient = xt::zeros<double>({c, k_out});
  std::vector<Matrix> blocks;
  if (hessian) blocks = hessian_layout(link_, exact, c, k_out);

  // Each worker fills its partial for one row block; the partials are added in block order, so
  // the sums are the same for any thread count.
  std::vector<Pass> partials(reduce_workers());
  for (Pass& part : partials) {
    if (gradient) part.gradient = xt::zeros<double>({c, k_out});
    part.blocks.resize(blocks.size());
    for (std::size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].size()) part.blocks[i] = xt::zeros<double>({c, c});
  }
  double pass_flops = 0;  // this rank's rows, then (after the sum) all rows
  std::exception_ptr failure;
  // Across ranks a pass continues the one-process fold over the row blocks
  // (fold_blocks_over_ranks) with one record [E, flops, gradient, Hessian blocks] per block, so
  // that on block-aligned shards it is one process's pass bit for bit: SCG, BFGS and IRLS on
  // ill-posed problems (separable classes) amplify a last-bit difference. When the records of
  // the largest shard would outgrow fold_record_bytes (large Hessians), the per-rank partials
  // are summed over the ranks instead (equal to rounding).
  std::size_t record_width = 2 + (gradient ? c * k_out : 0);
  for (const Matrix& blk : blocks) record_width += blk.size();
  const bool fold_records =
      collectives().size() > 1 &&
      double(record_width) * double(max_blocks_) * sizeof(double) <= double(fold_record_bytes);
  std::vector<double> records;
  try {
    reduce_blocks(
        [&](std::size_t worker, std::size_t first, const Matrix& phi) {
          block_pass(weights, exact, gradient != nullptr, hessian != nullptr, first, phi,
                     partials[worker]);
        },
        [&](std::size_t worker, std::size_t) {
          const Pass& part = partials[worker];
          if (fold_records) {
            records.push_back(part.error);
            records.push_back(part.flops);
            if (gradient)
              records.insert(records.end(), part.gradient.begin(), part.gradient.end());
            for (const Matrix& blk : part.blocks)
              if (blk.size()) records.insert(records.end(), blk.begin(), blk.end());
            return;
          }
          error += part.error;
          pass_flops += part.flops;
          if (gradient) add_to(*gradient, part.gradient);
          for (std::size_t i = 0; i < blocks.size(); ++i)
            if (blocks[i].size()) add_to(blocks[i], part.blocks[i]);
        });
  } catch (...) {
    failure = std::current_exception();
  }
  total_over_ranks(fold_records, records, record_width, failure, error, pass_flops, gradient,
                   blocks);
  flops += pass_flops;

  if (hessian) *hessian = assemble_hessian(link_, exact, blocks, c, k_out);
  if (penalty_ && with_penalty) add_penalty_terms(weights, gradient, hessian, error, flops);
  return error;
}

void Objective::count(bool gradient, bool hessian, double flops) {
  ++counters_.function_evaluations;
  if (gradient) ++counters_.gradient_evaluations;
  if (hessian) ++counters_.hessian_evaluations;
  counters_.flops += flops;
}

double Objective::value(const Matrix& weights) {
  double flops = 0;
  const double e = run(weights, nullptr, nullptr, HessianKind::Exact, true, flops);
  count(false, false, flops);
  return e;
}

double Objective::gradient(const Matrix& weights, Matrix& gradient) {
  double flops = 0;
  const double e = run(weights, &gradient, nullptr, HessianKind::Exact, true, flops);
  count(true, false, flops);
  return e;
}

double Objective::hessian(const Matrix& weights, HessianKind kind, Matrix& gradient,
                          Matrix& hessian) {
  double flops = 0;
  const double e = run(weights, &gradient, &hessian, kind, true, flops);
  count(true, true, flops);
  return e;
}

void Objective::hessian_product(const Matrix& weights, HessianKind kind,
                                const Matrix& direction, Matrix& product) {
  check_weights(weights);
  check_weights(direction);
  const std::size_t c = cols_, k_out = outputs();
  const bool exact = kind == HessianKind::Exact;
  product = xt::zeros<double>({c, k_out});
  std::vector<Pass> partials(reduce_workers());
  for (Pass& part : partials) part.gradient = xt::zeros<double>({c, k_out});
  double unused_error = 0, pass_flops = 0;
  std::exception_ptr failure;
  // Across ranks as run(): a record [0, flops, Phi_b^T U_b] per block continues the
  // one-process fold when the records fit in fold_record_bytes, else per-rank partials.
  const std::size_t record_width = 2 + c * k_out;
  const bool fold_records =
      collectives().size() > 1 &&
      double(record_width) * double(max_blocks_) * sizeof(double) <= double(fold_record_bytes);
  std::vector<double> records;
  try {
    reduce_blocks(
        [&](std::size_t worker, std::size_t first, const Matrix& phi) {
          block_product(weights, direction, exact, first, phi, partials[worker]);
        },
        [&](std::size_t worker, std::size_t) {
          const Pass& part = partials[worker];
          if (fold_records) {
            records.push_back(0.0);
            records.push_back(part.flops);
            records.insert(records.end(), part.gradient.begin(), part.gradient.end());
            return;
          }
          pass_flops += part.flops;
          add_to(product, part.gradient);
        });
  } catch (...) {
    failure = std::current_exception();
  }
  std::vector<Matrix> no_blocks;
  total_over_ranks(fold_records, records, record_width, failure, unused_error, pass_flops,
                   &product, no_blocks);
  if (penalty_) {
    penalty_->add_hessian_product(weights, direction, product);
    pass_flops += 2.0 * double(size());
  }
  ++counters_.hessian_products;
  counters_.flops += pass_flops;
}

double Objective::data_error(const Matrix& weights) const {
  double flops = 0;  // not counted: reports only
  return run(weights, nullptr, nullptr, HessianKind::Exact, false, flops);
}

double Objective::penalty(const Matrix& weights) const {
  check_weights(weights);
  return penalty_ ? penalty_->penalty(weights) : 0.0;
}

Matrix Objective::outputs_at(const Matrix& weights) const {
  check_weights(weights);
  const std::size_t k_out = outputs();
  Matrix out = xt::zeros<double>({rows(), k_out});
  Matrix act;
  for_each_block([&](std::size_t first, const Matrix& phi) {
    const std::size_t b = phi.shape(0);
    if (act.shape(0) != b || act.shape(1) != k_out) act.resize({b, k_out});
    xt::blas::gemm(phi, weights, act);
    apply_link(link_, act);
    std::copy(act.data(), act.data() + b * k_out, out.data() + first * k_out);
  });
  return out;
}

void Objective::weighted_normal_equations(const Matrix& v, const Matrix& z, Matrix& system,
                                          Vector& rhs) {
  const std::size_t k_out = outputs();
  agreed([&] {  // this rank's arrays: every rank stops when one has the wrong shape
    if (v.shape(0) != rows() || v.shape(1) != k_out || z.shape(0) != rows() ||
        z.shape(1) != k_out)
      throw ShapeError("glm objective: weighted least squares needs weights and right-hand "
                       "sides of " + std::to_string(rows()) + " x " + std::to_string(k_out) +
                       ", found " + shape_text(v) + " and " + shape_text(z));
  });
  weighted_normal_equations(
      [&](std::size_t first, const Matrix& t, Matrix& vb, Matrix& zb) {
        const std::size_t count = t.shape(0) * k_out;
        std::copy_n(v.data() + first * k_out, count, vb.data());
        std::copy_n(z.data() + first * k_out, count, zb.data());
      },
      system, rhs);
}

void Objective::weighted_normal_equations(const BlockWeights& weights, Matrix& system,
                                          Vector& rhs) {
  const std::size_t c = cols_, k_out = outputs(), p = size();
  std::vector<Matrix> a(k_out);
  for (auto& m : a) m = xt::zeros<double>({c, c});
  Matrix b = xt::zeros<double>({c, k_out});
  Matrix scaled, vz, t_block, v, z;
  double flops = 0;
  // The accumulators [flops, A_1..A_K, b] of all rows: the ranks' rows in turn, so that with
  // aligned shards the starting weights are one process's bit for bit (chain_over_ranks).
  const auto unpack = [&](const std::vector<double>& state) {
    flops = state[0];
    const double* from = state.data() + 1;
    for (Matrix& m : a) {
      std::copy_n(from, m.size(), m.data());
      from += m.size();
    }
    std::copy_n(from, b.size(), b.data());
  };
  std::vector<double> state(1 + k_out * c * c + c * k_out, 0.0);
  chain_over_ranks(state, [&](std::vector<double>& st) {
    unpack(st);
    for_each_block([&](std::size_t first, const Matrix& phi) {
      const std::size_t nb = phi.shape(0);
      if (scaled.shape(0) != nb || scaled.shape(1) != c) scaled.resize({nb, c});
      if (vz.shape(0) != nb || vz.shape(1) != k_out) {
        vz.resize({nb, k_out});
        v.resize({nb, k_out});
        z.resize({nb, k_out});
      }
      targets_block(first, nb, t_block);
      weights(first, t_block, v, z);
      for (std::size_t i = 0; i < nb * k_out; ++i)
        if (!(v.data()[i] >= 0))
          throw NumericalError("glm objective: weighted least squares needs weights >= 0, found " +
                               std::to_string(v.data()[i]) + " at row " +
                               std::to_string(first + i / k_out) + ", output " +
                               std::to_string(i % k_out));
      for (std::size_t i = 0; i < nb * k_out; ++i) vz.data()[i] = v.data()[i] * z.data()[i];
      xt::blas::gemm(phi, vz, b, true, false, 1.0, 1.0);  // b_k = Phi^T (v_k z_k)
      flops += double(nb * k_out) + flops::gemm(c, k_out, nb);
      for (std::size_t k = 0; k < k_out; ++k) {
        for (std::size_t n = 0; n < nb; ++n) {
          const double w = std::sqrt(v(n, k));
          const double* src = phi.data() + n * c;
          double* dst = scaled.data() + n * c;
          for (std::size_t j = 0; j < c; ++j) dst[j] = w * src[j];
        }
        // A_k = Phi^T diag(v_k) Phi = (sqrt(v_k) Phi)^T (sqrt(v_k) Phi)
        detail::add_gram(scaled.data(), nb, c, a[k].data());
        flops += double(nb) + double(nb) * double(c) + double(c) * double(c + 1) * double(nb);
      }
    });
    st.assign(1, flops);
    for (const Matrix& m : a) st.insert(st.end(), m.begin(), m.end());
    st.insert(st.end(), b.begin(), b.end());
  });
  unpack(state);
  system = xt::zeros<double>({p, p});
  rhs = xt::zeros<double>({p});
  for (std::size_t k = 0; k < k_out; ++k)
    for (std::size_t i = 0; i < c; ++i) {
      rhs(i * k_out + k) = b(i, k);
      for (std::size_t j = 0; j < c; ++j) system(i * k_out + k, j * k_out + k) = a[k](i, j);
    }
  if (penalty_) {
    const Matrix zero = xt::zeros<double>({c, k_out});
    penalty_->add_hessian(zero, system);
    flops += double(p);
  }
  counters_.flops += flops;
}

}  // namespace radial::glm
