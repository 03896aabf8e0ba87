// Orthogonal least squares forward selection (forward_selection.hpp).
#include "forward_selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <radial/distributed/collectives.hpp>
#include <radial/exec/parallel.hpp>

namespace radial::plugins {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

// Four running sums (so the additions need not wait on each other), then added in a fixed
// order: the value depends on n and the data only, not on the thread that computes it.
double dot(const double* a, const double* b, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// q -= alpha w, returning q's new squared norm (summed as dot() sums).
double subtract_and_norm(double* q, const double* w, double alpha, std::size_t n) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    q[i] -= alpha * w[i];
    q[i + 1] -= alpha * w[i + 1];
    q[i + 2] -= alpha * w[i + 2];
    q[i + 3] -= alpha * w[i + 3];
    s0 += q[i] * q[i];
    s1 += q[i + 1] * q[i + 1];
    s2 += q[i + 2] * q[i + 2];
    s3 += q[i + 3] * q[i + 3];
  }
  for (; i < n; ++i) {
    q[i] -= alpha * w[i];
    s0 += q[i] * q[i];
  }
  return (s0 + s1) + (s2 + s3);
}

// The step's figures of every candidate still in play: h_k = w_k^T w_k and c_k = w_k^T D (K
// values; D the centred targets, = w_k^T E since w_k is orthogonal to every chosen column,
// and independent of lambda).
struct Candidates {
  std::vector<double> h, h0;   // squared norms now, and after centring (for the dependence test)
  std::vector<double> c;       // M_c x K
  std::vector<char> open;      // neither chosen nor dependent
};

}  // namespace

LambdaEstimate reestimate_lambda(const std::vector<double>& h, const std::vector<double>& c,
                                 std::size_t k_out, double centred_total, double rows,
                                 double start) {
  // GCV(lambda) = N S / (N - gamma)^2 with, for orthogonal w_i (Orr 1996's ridge regression,
  // in the orthogonal form of his regularised forward selection):
  //   S = d^T d - sum_i c_i^2 (h_i + 2 lambda) / (h_i + lambda)^2   (the residual e^T e)
  //   gamma = 1 + sum_i h_i / (h_i + lambda)                         (= N - trace(P))
  // dS/dlambda = 2 lambda sum_i c_i^2 / (h_i + lambda)^3 (= 2 lambda w^T A^-1 w) and
  // dgamma/dlambda = -sum_i h_i / (h_i + lambda)^2 (= -trace(A^-1 - lambda A^-2)), so GCV is
  // stationary where
  //   lambda = S trace(A^-1 - lambda A^-2) / (w^T A^-1 w trace(P)),
  // Orr's re-estimation formula, iterated here from `start` to its fixed point.
  const std::size_t m = h.size();
  double hmax = 0;
  for (double v : h) hmax = std::max(hmax, v);
  const double ceiling = 1e12 * std::max(hmax, 1.0);  // GCV still falling: lambda -> infinity
  LambdaEstimate out;
  out.lambda = start;
  for (int it = 0; it < 1000; ++it) {
    const double lam = out.lambda;
    double s = centred_total, gamma = 1, trace = 0, weights = 0;
    for (std::size_t i = 0; i < m; ++i) {
      double c2 = 0;
      for (std::size_t o = 0; o < k_out; ++o) c2 += c[i * k_out + o] * c[i * k_out + o];
      const double hl = h[i] + lam;
      s -= c2 * (h[i] + 2 * lam) / (hl * hl);
      gamma += h[i] / hl;
      trace += h[i] / (hl * hl);
      weights += c2 / (hl * hl * hl);
    }
    s = std::max(s, 0.0);
    out.iterations = it + 1;
    if (!(weights > 0) || !(rows - gamma > 0)) {  // nothing fitted, or no degrees left
      out.converged = true;
      break;
    }
    double next = s * trace / (weights * (rows - gamma));
    if (!std::isfinite(next) || next >= ceiling) {
      out.lambda = ceiling;
      out.converged = true;
      break;
    }
    const bool done = std::abs(next - lam) <= 1e-10 * std::max(next, lam);
    out.lambda = next;
    if (done || next == 0) {
      out.converged = true;
      break;
    }
  }
  return out;
}

namespace {

// One forward selection: the candidates' orthogonalised columns (in `columns`), the centred
// targets and residual, the hat diagonal and the record, with one method per part of a step.
class ForwardSelection {
 public:
  ForwardSelection(Matrix& columns, const Matrix& targets, const OlsSettings& s)
      : columns_(columns), s_(s), mc_(columns.shape(0)), n_(columns.shape(1)),
        k_out_(targets.shape(1)), nn_(double(count_over_ranks(n_))),
        lambda_(s.reestimate ? 0.0 : s.lambda) {  // reestimated: the first choice is OLS's
    centre(targets);
    hat_.assign(n_, 1.0 / nn_);
    figures();
  }

  OlsSelection run();

 private:
  void centre(const Matrix& targets);
  void figures();
  std::size_t choose(double& best_err);
  void fit_chosen(std::size_t best);
  bool criterion_rose(double previous_lambda);
  void orthogonalise(std::size_t best);

  Matrix& columns_;
  const OlsSettings& s_;
  const std::size_t mc_, n_, k_out_;
  const double nn_;  // rows over all ranks: every sum over rows is this rank's, then summed
  double lambda_;
  double denominator_ = 1;     // trace(D^T D) of the targets, for the ratios
  double centred_total_ = 0;   // d^T d of the centred targets
  std::vector<double> centred_t_, residual_t_;  // D^T and E^T, K x N
  std::vector<double> hat_;    // the hat matrix's diagonal
  double gamma_ = 1.0;         // effective number of parameters (the bias counts 1)
  Candidates cand_;
  std::vector<double> chosen_h_, chosen_c_;  // the chosen columns' h_i and c_i (K each)
  std::vector<double> w_, a_, h_sums_;
  OlsSelection out_;
};

// The bias column w_0 = 1 first: g_0 = mean of each target, err_0 = N g_0^2 / d^T d; every
// candidate loses its mean (orthogonalised against w_0), then h and c of every candidate once,
// this rank's rows, summed over the ranks in one message (later steps update them).
void ForwardSelection::centre(const Matrix& targets) {
  double total = 0;
  for (double v : targets) total += v * v;
  total = sum_over_ranks(total);
  denominator_ = total > 0 ? total : 1.0;
  std::vector<double> means(k_out_ + mc_, 0.0);  // the targets', then the candidates'
  for (std::size_t o = 0; o < k_out_; ++o)
    for (std::size_t r = 0; r < n_; ++r) means[o] += targets(r, o);
  for (std::size_t k = 0; k < mc_; ++k) {
    const double* q = columns_.data() + k * n_;
    for (std::size_t r = 0; r < n_; ++r) means[k_out_ + k] += q[r];
  }
  sum_over_ranks(means);
  for (double& m : means) m /= nn_;
  centred_t_.resize(k_out_ * n_);
  for (std::size_t o = 0; o < k_out_; ++o) {
    out_.bias_err += nn_ * means[o] * means[o] / denominator_;
    for (std::size_t r = 0; r < n_; ++r) centred_t_[o * n_ + r] = targets(r, o) - means[o];
  }
  for (double v : centred_t_) centred_total_ += v * v;
  centred_total_ = sum_over_ranks(centred_total_);
  residual_t_ = centred_t_;
  cand_.h.assign(mc_, 0);
  cand_.c.assign(mc_ * k_out_, 0);
  cand_.open.assign(mc_, 1);
  std::vector<double> sums(mc_ * (1 + k_out_));
  parallel_for_blocks(mc_, 16, s_.threads, [&](std::size_t, const RowBlock& b) {
    for (std::size_t k = b.first; k < b.first + b.count; ++k) {
      double* q = columns_.data() + k * n_;
      const double mean = means[k_out_ + k];
      for (std::size_t r = 0; r < n_; ++r) q[r] -= mean;
      sums[k] = dot(q, q, n_);
      for (std::size_t o = 0; o < k_out_; ++o)
        sums[mc_ + k * k_out_ + o] = dot(q, centred_t_.data() + o * n_, n_);
    }
  });
  sum_over_ranks(sums);
  std::copy_n(sums.begin(), mc_, cand_.h.begin());
  std::copy(sums.begin() + std::ptrdiff_t(mc_), sums.end(), cand_.c.begin());
  cand_.h0 = cand_.h;
  w_.resize(n_);
  a_.resize(mc_);
  h_sums_.resize(mc_);
}

// The residual's mean square, GCV and leave-one-out (hat diagonal: 1/N for the bias, then
// + w_i(n)^2 / (h_i + lambda) per chosen column) and the lambda they were taken at.
void ForwardSelection::figures() {
  std::vector<double> f(2, 0.0);  // sse, loo
  for (std::size_t o = 0; o < k_out_; ++o)
    for (std::size_t r = 0; r < n_; ++r) {
      const double e = residual_t_[o * n_ + r];
      f[0] += e * e;
      const double slack = 1.0 - hat_[r];
      f[1] += slack > 1e-12 ? (e / slack) * (e / slack) : infinity;
    }
  sum_over_ranks(f);
  const double sse = f[0];
  out_.mse.push_back(sse / (nn_ * double(k_out_)));
  out_.gcv.push_back(nn_ - gamma_ > 0 ? nn_ * sse / ((nn_ - gamma_) * (nn_ - gamma_)) : infinity);
  out_.loo.push_back(f[1] / nn_);
  out_.lambda.push_back(lambda_);
}

// The largest error reduction ratio among the independent candidates (ties to the first), or
// mc_ when none is left; a candidate in the span of those chosen is closed on the way.
std::size_t ForwardSelection::choose(double& best_err) {
  std::size_t best = mc_;
  best_err = -1;
  for (std::size_t k = 0; k < mc_; ++k) {
    if (!cand_.open[k]) continue;
    if (!(cand_.h[k] > s_.dependence * cand_.h0[k]) || !(cand_.h0[k] > 0)) {
      cand_.open[k] = 0;  // (numerically) in the span of the chosen columns
      continue;
    }
    double num = 0;
    for (std::size_t o = 0; o < k_out_; ++o)
      num += cand_.c[k * k_out_ + o] * cand_.c[k * k_out_ + o];
    const double err = num / ((cand_.h[k] + lambda_) * denominator_);
    if (err > best_err) {
      best_err = err;
      best = k;
    }
  }
  return best;
}

// The weights g_i = c_i / (h_i + lambda), residual, hat diagonal and gamma with `best` added.
// Fixed lambda: E -= w g^T and the rest grow by its terms. Re-estimated: lambda moves to GCV's
// stationary point for the columns chosen so far (Orr 1995); the orthogonal columns and c_i do
// not depend on it, the weights, residual and hat do, so they are made again from all of them.
void ForwardSelection::fit_chosen(std::size_t best) {
  const double h = cand_.h[best];
  const double* c_best = cand_.c.data() + best * k_out_;
  std::copy(columns_.data() + best * n_, columns_.data() + (best + 1) * n_, w_.begin());
  chosen_h_.push_back(h);
  chosen_c_.insert(chosen_c_.end(), c_best, c_best + k_out_);
  std::size_t first = chosen_h_.size() - 1;  // the columns to add: the new one, or all
  if (s_.reestimate) {
    const LambdaEstimate est =
        reestimate_lambda(chosen_h_, chosen_c_, k_out_, centred_total_, nn_, lambda_);
    lambda_ = est.lambda;
    if (!est.converged) ++out_.lambda_unconverged;
    residual_t_ = centred_t_;
    std::fill(hat_.begin(), hat_.end(), 1.0 / nn_);
    gamma_ = 1.0;
    first = 0;
  }
  for (std::size_t i = first; i < chosen_h_.size(); ++i) {
    const double* wi =
        i < out_.chosen.size() ? columns_.data() + out_.chosen[i] * n_ : w_.data();
    const double hl = chosen_h_[i] + lambda_;
    for (std::size_t o = 0; o < k_out_; ++o) {
      const double g = chosen_c_[i * k_out_ + o] / hl;
      double* e = residual_t_.data() + o * n_;
      for (std::size_t r = 0; r < n_; ++r) e[r] -= g * wi[r];
    }
    for (std::size_t r = 0; r < n_; ++r) hat_[r] += wi[r] * wi[r] / hl;
    gamma_ += chosen_h_[i] / hl;
  }
}

// GCV or LOO rose (or stayed) at the last step: the minimum was one step back (Orr 1995), so
// the step is undone. The first centre stays whatever the criterion says (a network has one).
bool ForwardSelection::criterion_rose(double previous_lambda) {
  const std::vector<double>* criterion =
      s_.stop == OlsStop::Gcv ? &out_.gcv : s_.stop == OlsStop::Loo ? &out_.loo : nullptr;
  if (!criterion || out_.chosen.size() < 2) return false;
  const std::size_t last = criterion->size() - 1;
  if ((*criterion)[last] < (*criterion)[last - 1]) return false;
  out_.chosen.pop_back();
  out_.err.pop_back();
  out_.mse.pop_back();
  out_.gcv.pop_back();
  out_.loo.pop_back();
  out_.lambda.pop_back();
  lambda_ = previous_lambda;
  out_.stopped_by_criterion = true;
  return true;
}

// Every open candidate loses its w component (modified Gram-Schmidt: a_k = w^T q_k,
// q_k -= (a_k / h) w), two passes over the columns a step. Its squared norm is summed afresh in
// the second pass (the dependence test and the ratio's denominator need it exactly); its
// c_k = q_k^T D follows from the same subtraction, c_k -= (a_k / h) c_best, at K operations
// instead of a pass over the rows per output.
void ForwardSelection::orthogonalise(std::size_t best) {
  const double h = cand_.h[best];
  const double* c_best = cand_.c.data() + best * k_out_;
  parallel_for_blocks(mc_, 16, s_.threads, [&](std::size_t, const RowBlock& b) {
    for (std::size_t k = b.first; k < b.first + b.count; ++k)
      a_[k] = cand_.open[k] ? dot(w_.data(), columns_.data() + k * n_, n_) : 0.0;
  });
  sum_over_ranks(a_);
  parallel_for_blocks(mc_, 16, s_.threads, [&](std::size_t, const RowBlock& b) {
    for (std::size_t k = b.first; k < b.first + b.count; ++k) {
      h_sums_[k] = 0;
      if (!cand_.open[k]) continue;
      const double alpha = a_[k] / h;
      h_sums_[k] = subtract_and_norm(columns_.data() + k * n_, w_.data(), alpha, n_);
      for (std::size_t o = 0; o < k_out_; ++o) cand_.c[k * k_out_ + o] -= alpha * c_best[o];
    }
  });
  sum_over_ranks(h_sums_);
  for (std::size_t k = 0; k < mc_; ++k)
    if (cand_.open[k]) cand_.h[k] = h_sums_[k];
}

OlsSelection ForwardSelection::run() {
  while (out_.chosen.size() < s_.count) {
    if (s_.stop == OlsStop::Goal && out_.mse.back() <= s_.goal) break;
    double best_err = -1;
    const std::size_t best = choose(best_err);
    if (best == mc_) {
      out_.exhausted = true;
      break;
    }
    cand_.open[best] = 0;
    const double previous_lambda = lambda_;
    fit_chosen(best);
    out_.chosen.push_back(best);
    out_.err.push_back(best_err);
    figures();
    if (criterion_rose(previous_lambda)) break;
    if (out_.chosen.size() == s_.count) break;
    orthogonalise(best);
  }
  if (s_.stop == OlsStop::Goal && out_.mse.back() <= s_.goal) out_.stopped_by_criterion = true;
  return std::move(out_);
}

}  // namespace

OlsSelection forward_select(Matrix& columns, const Matrix& targets, const OlsSettings& s) {
  return ForwardSelection(columns, targets, s).run();
}

}  // namespace radial::plugins
