// Orthogonal least squares forward selection (forward_selection.hpp).
#include "forward_selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <radial/distributed/collectives.hpp>
#include <radial/parallel.hpp>

namespace radial::plugins {

namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

double dot(const double* a, const double* b, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// The step's figures of every candidate still in play: h_k = w_k^T w_k and c_k = w_k^T E
// (K values; = w_k^T D, since w_k is orthogonal to every chosen column).
struct Candidates {
  std::vector<double> h, h0;   // squared norms now, and after centring (for the dependence test)
  std::vector<double> c;       // M_c x K
  std::vector<char> open;      // neither chosen nor dependent
};

// h_k and c_k of candidate k from its (orthogonalised) column q and the residual E (K x N,
// transposed so each output's residual is contiguous).
void measure(const double* q, const std::vector<double>& residual_t, std::size_t n,
             std::size_t k_out, double& h, double* c) {
  h = dot(q, q, n);
  for (std::size_t o = 0; o < k_out; ++o) c[o] = dot(q, residual_t.data() + o * n, n);
}

}  // namespace

OlsSelection forward_select(Matrix& columns, const Matrix& targets, const OlsSettings& s) {
  const std::size_t mc = columns.shape(0), n = columns.shape(1), k_out = targets.shape(1);
  const double lambda = s.lambda;
  OlsSelection out;
  // Rows over all ranks: every sum over rows below is this rank's, then summed over the ranks.
  const std::size_t rows = count_over_ranks(n);
  const double nn = double(rows);

  // d^T d over every output: the error reduction ratios' denominator (trace(D^T D)).
  double total = 0;
  for (double v : targets) total += v * v;
  total = sum_over_ranks(total);
  const double denominator = total > 0 ? total : 1.0;

  // The bias column w_0 = 1 first: g_0 = mean of each target, err_0 = N g_0^2 / d^T d;
  // every candidate loses its mean (orthogonalised against w_0).
  std::vector<double> means(k_out + mc, 0.0);  // the targets', then the candidates'
  for (std::size_t o = 0; o < k_out; ++o)
    for (std::size_t r = 0; r < n; ++r) means[o] += targets(r, o);
  for (std::size_t k = 0; k < mc; ++k) {
    const double* q = columns.data() + k * n;
    for (std::size_t r = 0; r < n; ++r) means[k_out + k] += q[r];
  }
  sum_over_ranks(means);
  for (double& m : means) m /= nn;
  std::vector<double> residual_t(k_out * n);  // E^T, K x N
  for (std::size_t o = 0; o < k_out; ++o) {
    out.bias_err += nn * means[o] * means[o] / denominator;
    for (std::size_t r = 0; r < n; ++r) residual_t[o * n + r] = targets(r, o) - means[o];
  }
  Candidates cand;
  cand.h.assign(mc, 0);
  cand.h0.assign(mc, 0);
  cand.c.assign(mc * k_out, 0);
  cand.open.assign(mc, 1);
  // h and c of every candidate, this rank's rows, then summed over the ranks (one message).
  std::vector<double> sums(mc * (1 + k_out));
  const auto measure_all = [&] {
    parallel_for_blocks(mc, 16, s.threads, [&](std::size_t, const RowBlock& b) {
      for (std::size_t k = b.first; k < b.first + b.count; ++k)
        if (cand.open[k])
          measure(columns.data() + k * n, residual_t, n, k_out, sums[k],
                  sums.data() + mc + k * k_out);
    });
    sum_over_ranks(sums);
    for (std::size_t k = 0; k < mc; ++k) {
      if (!cand.open[k]) continue;
      cand.h[k] = sums[k];
      std::copy_n(sums.data() + mc + k * k_out, k_out, cand.c.data() + k * k_out);
    }
  };
  parallel_for_blocks(mc, 16, s.threads, [&](std::size_t, const RowBlock& b) {
    for (std::size_t k = b.first; k < b.first + b.count; ++k) {
      double* q = columns.data() + k * n;
      const double mean = means[k_out + k];
      for (std::size_t r = 0; r < n; ++r) q[r] -= mean;
    }
  });
  measure_all();
  cand.h0 = cand.h;

  // Leave-one-out needs the hat matrix's diagonal: 1/N for the bias, then + w_i(n)^2 /
  // (h_i + lambda) per chosen column.
  std::vector<double> hat(n, 1.0 / nn);
  double gamma = 1.0;  // effective number of parameters (the bias counts 1, unpenalised)
  const auto figures = [&] {
    std::vector<double> f(2, 0.0);  // sse, loo
    for (std::size_t o = 0; o < k_out; ++o)
      for (std::size_t r = 0; r < n; ++r) {
        const double e = residual_t[o * n + r];
        f[0] += e * e;
        const double slack = 1.0 - hat[r];
        f[1] += slack > 1e-12 ? (e / slack) * (e / slack) : infinity;
      }
    sum_over_ranks(f);
    const double sse = f[0];
    out.mse.push_back(sse / (nn * double(k_out)));
    out.gcv.push_back(nn - gamma > 0 ? nn * sse / ((nn - gamma) * (nn - gamma)) : infinity);
    out.loo.push_back(f[1] / nn);
  };
  figures();

  std::vector<double> w(n), a(mc);
  while (out.chosen.size() < s.count) {
    if (s.stop == OlsStop::Goal && out.mse.back() <= s.goal) {
      out.stopped_by_criterion = true;
      break;
    }
    // The largest error reduction ratio among the independent candidates; ties to the first.
    std::size_t best = mc;
    double best_err = -1;
    for (std::size_t k = 0; k < mc; ++k) {
      if (!cand.open[k]) continue;
      if (!(cand.h[k] > s.dependence * cand.h0[k]) || !(cand.h0[k] > 0)) {
        cand.open[k] = 0;  // (numerically) in the span of the chosen columns
        continue;
      }
      double num = 0;
      for (std::size_t o = 0; o < k_out; ++o) num += cand.c[k * k_out + o] * cand.c[k * k_out + o];
      const double err = num / ((cand.h[k] + lambda) * denominator);
      if (err > best_err) {
        best_err = err;
        best = k;
      }
    }
    if (best == mc) {
      out.exhausted = true;
      break;
    }
    cand.open[best] = 0;
    const double h = cand.h[best];
    std::copy(columns.data() + best * n, columns.data() + (best + 1) * n, w.begin());
    // g_o = w^T d_o / (h + lambda); E -= w g^T; the hat diagonal and gamma grow.
    for (std::size_t o = 0; o < k_out; ++o) {
      const double g = cand.c[best * k_out + o] / (h + lambda);
      double* e = residual_t.data() + o * n;
      for (std::size_t r = 0; r < n; ++r) e[r] -= g * w[r];
    }
    for (std::size_t r = 0; r < n; ++r) hat[r] += w[r] * w[r] / (h + lambda);
    gamma += h / (h + lambda);
    out.chosen.push_back(best);
    out.err.push_back(best_err);
    figures();
    const std::vector<double>* criterion =
        s.stop == OlsStop::Gcv ? &out.gcv : s.stop == OlsStop::Loo ? &out.loo : nullptr;
    if (criterion && out.chosen.size() > 1) {
      // (The first centre stays whatever the criterion says: a network has one at least.)
      const std::size_t last = criterion->size() - 1;
      if (!((*criterion)[last] < (*criterion)[last - 1])) {
        // The criterion rose (or stayed): the minimum was one step back (Orr 1995).
        out.chosen.pop_back();
        out.err.pop_back();
        out.mse.pop_back();
        out.gcv.pop_back();
        out.loo.pop_back();
        out.stopped_by_criterion = true;
        break;
      }
    }
    if (out.chosen.size() == s.count) break;
    // Every open candidate loses its w component (modified Gram-Schmidt), then is measured
    // against the new residual.
    parallel_for_blocks(mc, 16, s.threads, [&](std::size_t, const RowBlock& b) {
      for (std::size_t k = b.first; k < b.first + b.count; ++k)
        a[k] = cand.open[k] ? dot(w.data(), columns.data() + k * n, n) : 0.0;
    });
    sum_over_ranks(a);
    parallel_for_blocks(mc, 16, s.threads, [&](std::size_t, const RowBlock& b) {
      for (std::size_t k = b.first; k < b.first + b.count; ++k) {
        if (!cand.open[k]) continue;
        double* q = columns.data() + k * n;
        const double alpha = a[k] / h;
        for (std::size_t r = 0; r < n; ++r) q[r] -= alpha * w[r];
      }
    });
    measure_all();
  }
  if (s.stop == OlsStop::Goal && out.mse.back() <= s.goal) out.stopped_by_criterion = true;
  return out;
}

}  // namespace radial::plugins
