// The E-steps of the mixture EM (mixture_em.hpp): responsibilities by log-sum-exp over fixed
// row blocks (dense GEMM densities, or K-d tree candidates with one fallback), accumulated into
// centred occupation counts with an ordered reduction (paper 002, section III-A, III-C, fig. 2;
// Constantinopoulos et al. eq 4 for class-specific weights).
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#include "mixture_em_detail.hpp"
#include "mixture_estep_counts.hpp"
#include "../observed_gaussian.hpp"
#include "radial/distributed/collectives.hpp"
#include "radial/numerics/gaussian.hpp"
#include "radial/numerics/small_gemm.hpp"
#include "radial/numerics/vector_math.hpp"
#include "radial/exec/parallel.hpp"

namespace radial {

using namespace mixture_detail;

namespace {

// One set of responsibilities computed from a block's log densities: the log weights a row
// sees (one column for every row, or the column of the row's class) and the components it may
// use (with `allowed`, only those with owner == allowed(n)).
struct View {
  std::vector<const double*> log_weights;  // 1 or K columns of M values
  const Labels* weight_groups = nullptr;   // selects the column when there are K
  const Labels* allowed = nullptr;
  const Labels* owner = nullptr;
  MixtureCounts* counts = nullptr;
  bool class_counts = false;               // also fill counts->class_c1 / class_cx

  const double* row_weights(std::size_t n) const {
    return log_weights.size() == 1 ? log_weights[0]
                                   : log_weights[std::size_t((*weight_groups)(n))];
  }
  bool masked(std::size_t n, std::size_t j) const {
    return allowed && (*owner)(j) != (*allowed)(n);
  }
};

struct ViewSums {
  double log_likelihood = 0;
};

// The Full quadratic-feature form (SquaredDistances): log N(x_n|j) = min((F W')_nj, c_j) in one
// GEMM with W' = -0.5 W and c_j added to the coefficient of the constant feature (r^2 >= 0
// clamped); the Full counts then reuse F (accumulate_block).
struct FeatureForm {
  std::size_t p = 0;
  Matrix coefficients;       // P x M
  std::vector<double> cap;   // M
};

FeatureForm make_feature_form(const GaussianLogDensity& density) {
  const SquaredDistances& dist = density.distances();
  const Vector& c = density.constants();
  FeatureForm form;
  form.p = dist.feature_count();
  const std::size_t m = dist.count();
  form.coefficients = -0.5 * dist.feature_coefficients();  // exact: a power of 2
  form.cap.resize(m);
  for (std::size_t j = 0; j < m; ++j) {
    form.cap[j] = c(j);
    form.coefficients(form.p - 1, j) += c(j);
  }
  return form;
}

// One row's candidates (component, log density) -> the allowed ones with a = log w + log N,
// then responsibilities in `value`; returns the log-sum-exp (-inf when nothing is allowed).
double sparse_row(const std::uint32_t* comp, const double* logn, std::size_t count,
                  const double* log_weights, const View& view, std::size_t row,
                  std::vector<std::uint32_t>& used, std::vector<double>& value) {
  used.clear();
  value.clear();
  double mx = minus_inf;
  for (std::size_t e = 0; e < count; ++e) {
    const std::uint32_t j = comp[e];
    if (view.masked(row, j)) continue;
    const double a = logn[e] + log_weights[j];
    if (a == minus_inf) continue;
    used.push_back(j);
    value.push_back(a);
    mx = std::max(mx, a);
  }
  if (used.empty()) return minus_inf;
  for (double& v : value) v -= mx;
  exp_in_place(value.data(), value.size());
  double s = 0;
  for (const double v : value) s += v;
  const double inv = 1.0 / s;
  for (double& v : value) v *= inv;
  return mx + std::log(s);
}

// The K-d tree fallback, for a row whose leaf holds none of the components of the first view:
// the leaf's candidates the view may not use are kept (other views may use them) and every
// component the view may use is evaluated directly, in index order. Returns how many were
// evaluated.
std::size_t widen_candidates(const TreeLogDensity& density, const double* x, const View& view,
                      std::size_t row, const std::uint32_t* comp, const double* logn,
                      std::size_t count, std::vector<std::uint32_t>& out_comp,
                      std::vector<double>& out_logn) {
  out_comp.clear();
  out_logn.clear();
  for (std::size_t e = 0; e < count; ++e)
    if (view.masked(row, comp[e])) {
      out_comp.push_back(comp[e]);
      out_logn.push_back(logn[e]);
    }
  const std::size_t kept = out_comp.size();
  for (std::size_t j = 0; j < density.count(); ++j) {
    if (view.masked(row, j)) continue;
    out_comp.push_back(std::uint32_t(j));
    out_logn.push_back(density.log_density(x, j));
  }
  return out_comp.size() - kept;
}

struct MissingScratch {
  std::vector<std::size_t> observed, missing;
  observed_gaussian::Scratch gaussian;
  std::vector<double> log_density, a, xhat, cond;
};

// One row with missing cells (Ghahramani & Jordan 1994, section 3): the responsibilities from
// the marginal densities N(x_o | mu_jo, S_joo) of its observed coordinates o, and the expected
// statistics: x with each missing coordinate at its conditional mean under component j in C(x)
// and the scatter, plus the conditional covariance of the missing coordinates in the scatter
// (their eqs 7-9: E[x_m | x_o, j] and E[x_m x_m^T | x_o, j]). Evaluates every component.
void missing_row(const Matrix& x, std::size_t row, const Centres& components,
                 const observed_gaussian::Precisions* precisions, const std::vector<View>& views,
                 bool statistics, Vector* row_ll, MissingScratch& s,
                 std::vector<MixtureCounts>& counts, std::vector<double>& log_likelihood,
                 double& evaluated) {
  static const double log_2pi = std::log(2.0 * M_PI);
  const std::size_t m = components.count(), d = components.dim();
  const bool full = components.shape == Shape::Full;
  const double* xr = &x(row, 0);
  observed_gaussian::split(xr, d, s.observed, s.missing);
  const std::size_t nm = s.missing.size(), cs = full ? nm * nm : nm;
  s.log_density.resize(m);
  s.a.resize(m);
  if (statistics) {
    s.xhat.resize(m * d);
    s.cond.resize(m * cs);
  }
  for (std::size_t j = 0; j < m; ++j) {
    double* xhat = statistics ? &s.xhat[j * d] : nullptr;
    double* cond = statistics ? &s.cond[j * cs] : nullptr;
    const observed_gaussian::Result g =
        precisions ? observed_gaussian::evaluate(*precisions, components, j, xr, s.observed,
                                                 s.missing, s.gaussian, xhat, cond)
                   : observed_gaussian::evaluate(components, j, xr, s.observed, s.missing,
                                                 s.gaussian, xhat, cond);
    s.log_density[j] = -0.5 * (double(s.observed.size()) * log_2pi + g.log_det + g.r2);
  }
  evaluated += double(m);
  for (std::size_t v = 0; v < views.size(); ++v) {
    const View& view = views[v];
    const double* lw = view.row_weights(row);
    double mx = minus_inf;
    for (std::size_t j = 0; j < m; ++j) {
      s.a[j] = view.masked(row, j) ? minus_inf : s.log_density[j] + lw[j];
      mx = std::max(mx, s.a[j]);
    }
    double l = minus_inf;
    if (mx > minus_inf) {
      double sum = 0;
      for (std::size_t j = 0; j < m; ++j) sum += std::exp(s.a[j] - mx);
      l = mx + std::log(sum);
    }
    if (v == 0 && row_ll) (*row_ll)(row) = l;
    log_likelihood[v] += l;
    if (!statistics || l == minus_inf) continue;
    MixtureCounts& c = counts[v];
    for (std::size_t j = 0; j < m; ++j) {
      const double r = std::exp(s.a[j] - l);
      if (!(r > 0)) continue;
      const double* xh = &s.xhat[j * d];
      accumulate_one(xh, j, r, c, d);
      const double* cv = &s.cond[j * cs];
      if (full) {
        double* sc = &c.scatter(j, 0, 0);
        for (std::size_t i = 0; i < nm; ++i)
          for (std::size_t k = 0; k < nm; ++k)
            sc[s.missing[i] * d + s.missing[k]] += r * cv[i * nm + k];
      } else {
        for (std::size_t i = 0; i < nm; ++i) c.scatter_diagonal(j, s.missing[i]) += r * cv[i];
      }
      if (view.class_counts) {
        const auto k = std::size_t((*view.weight_groups)(row));
        c.class_c1(j, k) += r;
        double* cx = &c.class_cx(j, k, 0);
        for (std::size_t a = 0; a < d; ++a) cx[a] += r * xh[a];
      }
    }
  }
}

struct EStepTotals {
  std::vector<double> log_likelihood;  // per view
  std::size_t fallback_rows = 0;
  double evaluated = 0;
  std::size_t rows = 0;                // over every rank
};

// Sums every total of the E-step over the ranks of collectives() in one message (each rank's
// block-ordered partials, added in rank order: the same bits on every rank).
void sum_totals_over_ranks(EStepTotals& totals, std::vector<View>& views, bool statistics) {
  std::vector<std::pair<double*, std::size_t>> arrays;
  if (statistics)
    for (View& v : views) {
      const auto c = count_arrays(*v.counts);
      arrays.insert(arrays.end(), c.begin(), c.end());
    }
  std::vector<double> packed(totals.log_likelihood);
  packed.push_back(double(totals.fallback_rows));
  packed.push_back(totals.evaluated);
  packed.push_back(double(totals.rows));
  for (const auto& [data, size] : arrays) packed.insert(packed.end(), data, data + size);
  sum_over_ranks(packed);
  const std::size_t nv = totals.log_likelihood.size();
  std::copy(packed.begin(), packed.begin() + std::ptrdiff_t(nv), totals.log_likelihood.begin());
  totals.fallback_rows = std::size_t(packed[nv]);
  totals.evaluated = packed[nv + 1];
  totals.rows = std::size_t(packed[nv + 2]);
  std::size_t at = nv + 3;
  for (const auto& [data, size] : arrays) {
    const auto from = packed.begin() + std::ptrdiff_t(at);
    std::copy(from, from + std::ptrdiff_t(size), data);
    at += size;
  }
}

void reset_counts(MixtureCounts& c, std::size_t m, std::size_t d, Shape shape,
                  const Matrix& reference, std::size_t classes) {
  c.reset(m, d, shape);
  c.reference = reference;
  if (classes) {
    c.class_c1 = xt::zeros<double>({m, classes});
    c.class_cx = xt::zeros<double>({m, classes, d});
  }
}

void add_counts(MixtureCounts& to, const MixtureCounts& from) {
  add_to(to.c1.data(), from.c1.data(), from.c1.size());
  add_to(to.cx.data(), from.cx.data(), from.cx.size());
  add_to(to.cy.data(), from.cy.data(), from.cy.size());
  add_to(to.scatter_diagonal.data(), from.scatter_diagonal.data(), from.scatter_diagonal.size());
  add_to(to.scatter.data(), from.scatter.data(), from.scatter.size());
  add_to(to.class_c1.data(), from.class_c1.data(), from.class_c1.size());
  add_to(to.class_cx.data(), from.class_cx.data(), from.class_cx.size());
}

void zero(MixtureCounts& c) {
  for (auto* a : {&c.c1}) std::fill(a->begin(), a->end(), 0.0);
  for (auto* a : {&c.cx, &c.cy, &c.scatter_diagonal, &c.class_c1}) std::fill(a->begin(), a->end(), 0.0);
  for (auto* a : {&c.scatter, &c.class_cx}) std::fill(a->begin(), a->end(), 0.0);
}

// The components' log densities, built once per E-step: the K-d tree's leaf candidates (paper
// 002, section III-C) when a tree is given, else every Gaussian densely (section III-A), by one
// GEMM of the Full quadratic features (FeatureForm) when the distances have them.
struct EStepDensities {
  std::unique_ptr<GaussianLogDensity> dense;
  std::unique_ptr<TreeLogDensity> tree;
  FeatureForm form;             // form.p == 0: no feature form
  bool full_features = false;   // the Full counts reuse the density's features (accumulate_block)
};

EStepDensities make_densities(const Centres& components, const EStepOptions& options) {
  EStepDensities out;
  if (options.tree) {
    out.tree = std::make_unique<TreeLogDensity>(components, options.tree);
  } else {
    out.dense = std::make_unique<GaussianLogDensity>(components);
    if (out.dense->distances().feature_count()) {
      out.form = make_feature_form(*out.dense);
      out.full_features = components.shape == Shape::Full;
    }
  }
  return out;
}

// What every row block of one E-step reads.
struct EStepJob {
  const Matrix& x;
  const Centres& components;
  const observed_gaussian::Precisions* precisions;  // Full shapes with missing cells, else null
  const std::vector<View>& views;
  const EStepDensities& densities;
  bool statistics;
  Vector* row_ll;  // may be null
  std::size_t m, d;
};

// One worker's partial E-step over a row block (ordered_reduce): per-view counts and totals,
// and the scratch of the block's densities.
struct BlockPartial {
  Matrix xb, f, logn, a;
  BlockScratch scratch;
  std::vector<double> lse;
  std::vector<const double*> row_terms;  // each row's log weights
  SparseLogDensity sparse;
  std::vector<std::uint32_t> used, wide_comp;
  std::vector<double> resp, wide_logn;
  std::vector<MixtureCounts> counts;
  std::vector<double> log_likelihood;
  std::size_t fallback_rows = 0;
  double evaluated = 0;
  // Rows with a missing cell (data rows), and the block's other rows when there are some.
  std::vector<std::size_t> incomplete, complete;
  MissingScratch missing;
};

BlockPartial new_partial(const EStepJob& job, std::size_t classes) {
  const std::size_t nv = job.views.size();
  BlockPartial q;
  q.counts.resize(nv);
  for (std::size_t v = 0; v < nv; ++v)
    reset_counts(q.counts[v], job.m, job.d, job.components.shape, job.components.means,
                 job.views[v].class_counts ? classes : 0);
  q.log_likelihood.assign(nv, 0.0);
  return q;
}

// The rows of a block that take the dense or tree path, copied to q.xb: data row first + n, or
// index[n] when the block has rows with a missing cell.
struct BlockRows {
  std::size_t first = 0, rows = 0;
  const std::size_t* index = nullptr;
  std::size_t row(std::size_t n) const { return index ? index[n] : first + n; }
};

// Rows with a missing cell leave the block for missing_row (after the others, in q.incomplete);
// a block without one takes the fast path over all its rows.
BlockRows split_missing_rows(const Matrix& x, const RowBlock& rb, std::size_t d,
                             BlockPartial& q) {
  BlockRows br;
  br.first = rb.first;
  br.rows = rb.count;
  const std::size_t first = rb.first;
  q.incomplete.clear();
  q.complete.clear();
  for (std::size_t n = 0; n < rb.count; ++n)
    if (observed_gaussian::row_has_missing(&x(first + n, 0), d)) q.incomplete.push_back(first + n);
  if (q.incomplete.empty()) {
    copy_rows(x, first, br.rows, q.xb);
    return br;
  }
  for (std::size_t n = 0, i = 0; n < rb.count; ++n) {
    if (i < q.incomplete.size() && q.incomplete[i] == first + n) {
      ++i;
      continue;
    }
    q.complete.push_back(first + n);
  }
  br.rows = q.complete.size();
  q.xb.resize({br.rows, d});
  for (std::size_t n = 0; n < br.rows; ++n) std::copy_n(&x(q.complete[n], 0), d, &q.xb(n, 0));
  br.index = q.complete.data();
  return br;
}

// Dense log densities: log N(x_n|j) for every row and component, by the feature GEMM (clamped
// to form.cap in the views' pass, one pass over the block rather than two) or directly.
void dense_log_densities(const EStepJob& job, std::size_t rows, BlockPartial& q) {
  const EStepDensities& e = job.densities;
  const std::size_t p = e.form.p, m = job.m;
  if (p) {
    e.dense->distances().features(q.xb.data(), rows, q.f);
    q.logn.resize({rows, m});
    small_gemm(rows, m, p, q.f.data(), p, 1, e.form.coefficients.data(), m, q.logn.data(), m,
               false);
  } else {
    e.dense->compute(q.xb, q.logn);
  }
  q.evaluated = double(m) * double(rows);
}

// One view's responsibilities over a dense block (into q.a): a_nj = log w_j + log N(x_n|j),
// -inf for a masked component, normalised per row by log-sum-exp, whose values are the rows'
// log-likelihoods. Without masks, the terms are formed inside the softmax kernel's pass.
void dense_responsibilities(const EStepJob& job, std::size_t v, const BlockRows& br,
                            BlockPartial& q) {
  const View& view = job.views[v];
  const std::size_t rows = br.rows, m = job.m;
  const double* cap = job.densities.form.p ? job.densities.form.cap.data() : nullptr;
  if (q.a.shape(0) != rows || q.a.shape(1) != m) q.a.resize({rows, m});
  q.lse.resize(rows);
  q.row_terms.resize(rows);
  for (std::size_t n = 0; n < rows; ++n) q.row_terms[n] = view.row_weights(br.row(n));
  if (view.allowed) {
    for (std::size_t n = 0; n < rows; ++n) {
      const double* l = &q.logn(n, 0);
      const double* lw = q.row_terms[n];
      double* r = &q.a(n, 0);
      for (std::size_t j = 0; j < m; ++j)
        r[j] = view.masked(br.row(n), j) ? minus_inf
                                          : (cap ? std::min(l[j], cap[j]) : l[j]) + lw[j];
    }
    exp_normalise_rows(q.a.data(), rows, m, nullptr, q.lse.data());
  } else {
    exp_normalise_rows_from(q.a.data(), rows, m, q.logn.data(), cap, q.row_terms.data(),
                            q.lse.data());
  }
  for (std::size_t n = 0; n < rows; ++n) {
    if (v == 0 && job.row_ll) (*job.row_ll)(br.row(n)) = q.lse[n];
    q.log_likelihood[v] += q.lse[n];
  }
}

// Dense block: the log densities once, then each view's responsibilities and counts (one
// product per block, accumulate_block; the class-split counts, accumulate_classes).
void dense_block(const EStepJob& job, const BlockRows& br, BlockPartial& q) {
  const EStepDensities& e = job.densities;
  dense_log_densities(job, br.rows, q);
  for (std::size_t v = 0; v < job.views.size(); ++v) {
    const View& view = job.views[v];
    dense_responsibilities(job, v, br, q);
    if (!job.statistics) continue;
    accumulate_block(q.xb, q.a, e.full_features ? &q.f : nullptr,
                     e.full_features ? e.dense->distances().feature_reference().data() : nullptr,
                     q.counts[v], q.scratch);
    if (view.class_counts)
      accumulate_classes(q.xb, q.a, *view.weight_groups, br.first, br.index, q.counts[v],
                         q.scratch);
  }
}

// One row's sparse responsibilities (q.used, q.resp) added to view v's counts: C(1), C(x) and
// the scatter, and the class-split counts (Constantinopoulos et al. eq 4).
void accumulate_sparse_row(const double* xr, std::size_t row, const View& view, std::size_t d,
                           BlockPartial& q, MixtureCounts& counts) {
  for (std::size_t i = 0; i < q.used.size(); ++i)
    accumulate_one(xr, q.used[i], q.resp[i], counts, d);
  if (!view.class_counts) return;
  const auto k = std::size_t((*view.weight_groups)(row));
  for (std::size_t i = 0; i < q.used.size(); ++i) {
    counts.class_c1(q.used[i], k) += q.resp[i];
    double* s = &counts.class_cx(q.used[i], k, 0);
    for (std::size_t a = 0; a < d; ++a) s[a] += q.resp[i] * xr[a];
  }
}

// K-d tree block: each row's leaf candidates; when the first view may use none of them the
// fallback widens them (widen_candidates) for that row's every view.
void tree_block(const EStepJob& job, const BlockRows& br, BlockPartial& q) {
  const TreeLogDensity& tree = *job.densities.tree;
  tree.compute_sparse(q.xb, q.sparse);
  q.evaluated = double(q.sparse.value.size());
  for (std::size_t n = 0; n < br.rows; ++n) {
    const std::size_t row = br.row(n);
    const double* xr = &q.xb(n, 0);
    const std::size_t b = q.sparse.offset[n], e = q.sparse.offset[n + 1];
    const std::uint32_t* comp = q.sparse.component.data() + b;
    const double* val = q.sparse.value.data() + b;
    std::size_t count = e - b;
    for (std::size_t v = 0; v < job.views.size(); ++v) {
      const View& view = job.views[v];
      const double* lw = view.row_weights(row);
      double l = sparse_row(comp, val, count, lw, view, row, q.used, q.resp);
      if (v == 0 && q.used.empty()) {
        ++q.fallback_rows;
        q.evaluated += double(widen_candidates(tree, xr, view, row, comp, val, count,
                                               q.wide_comp, q.wide_logn));
        comp = q.wide_comp.data();
        val = q.wide_logn.data();
        count = q.wide_comp.size();
        l = sparse_row(comp, val, count, lw, view, row, q.used, q.resp);
      }
      if (job.statistics) accumulate_sparse_row(xr, row, view, job.d, q, q.counts[v]);
      if (v == 0 && job.row_ll) (*job.row_ll)(row) = l;
      q.log_likelihood[v] += l;
    }
  }
}

// One row block of the E-step into q (overwritten): its complete rows by the dense or tree
// path, then its rows with a missing cell one at a time (missing_row).
void e_step_block(const EStepJob& job, const RowBlock& rb, BlockPartial& q) {
  const BlockRows br = split_missing_rows(job.x, rb, job.d, q);
  std::fill(q.log_likelihood.begin(), q.log_likelihood.end(), 0.0);
  q.fallback_rows = 0;
  q.evaluated = 0;
  if (job.statistics)
    for (MixtureCounts& c : q.counts) zero(c);
  if (br.rows == 0) {
  } else if (!job.densities.tree) {
    dense_block(job, br, q);
  } else {
    tree_block(job, br, q);
  }
  for (const std::size_t row : q.incomplete)
    missing_row(job.x, row, job.components, job.precisions, job.views, job.statistics,
                job.row_ll, q.missing, q.counts, q.log_likelihood, q.evaluated);
}

// The ordered reduction's step: a block's partials added to the totals and the views' counts,
// in block order.
void add_block(const BlockPartial& q, bool statistics, std::vector<View>& views,
               EStepTotals& totals) {
  for (std::size_t v = 0; v < views.size(); ++v) {
    totals.log_likelihood[v] += q.log_likelihood[v];
    if (!statistics) continue;
    add_counts(*views[v].counts, q.counts[v]);
  }
  totals.fallback_rows += q.fallback_rows;
  totals.evaluated += q.evaluated;
}

// The E-step engine: each block's log densities are evaluated once (dense or tree), every
// view's responsibilities and counts follow from them, and the blocks' partials are summed in
// block order (parallel.hpp), so every count is the same for any thread count; then over the
// ranks of collectives() (sum_totals_over_ranks). row_ll (may be null) gets the first view's
// per-row log-likelihood of this rank's rows.
EStepTotals run_e_step(const Matrix& x, const Centres& components, std::vector<View>& views,
                       const EStepOptions& options, std::size_t classes, Vector* row_ll) {
  const std::size_t n_rows = x.shape(0), m = components.count(), d = components.dim();
  const bool statistics = options.statistics;
  const std::size_t block = std::max<std::size_t>(1, options.block_rows);
  for (View& v : views)
    reset_counts(*v.counts, m, d, components.shape, components.means,
                 v.class_counts ? classes : 0);
  const EStepDensities densities = make_densities(components, options);
  // Rows with missing cells under full covariances read each component's precision.
  std::optional<observed_gaussian::Precisions> precisions;
  if (components.shape == Shape::Full &&
      std::any_of(x.begin(), x.end(), [](double v) { return std::isnan(v); }))
    precisions = observed_gaussian::full_precisions(components);
  const EStepJob job{x, components, precisions ? &*precisions : nullptr, views, densities,
                     statistics, row_ll, m, d};

  EStepTotals totals;
  totals.log_likelihood.assign(views.size(), 0.0);
  totals.rows = n_rows;
  ordered_reduce<BlockPartial>(
      n_rows, block, options.threads, [&] { return new_partial(job, classes); },
      [&](const RowBlock& rb, BlockPartial& q) { e_step_block(job, rb, q); },
      [&](const RowBlock&, BlockPartial& q) { add_block(q, statistics, views, totals); });
  if (collectives().size() > 1) sum_totals_over_ranks(totals, views, statistics);
  return totals;
}

}  // namespace

void MixtureCounts::reset(std::size_t m, std::size_t d, Shape s) {
  shape = s;
  c1 = xt::zeros<double>({m});
  cx = xt::zeros<double>({m, d});
  cy = xt::zeros<double>({m, d});
  reference = xt::zeros<double>({m, d});
  class_c1 = Matrix();
  class_cx = Tensor3();
  if (s == Shape::Full) {
    scatter = xt::zeros<double>({m, d, d});
    scatter_diagonal = Matrix();
  } else {
    scatter_diagonal = xt::zeros<double>({m, d});
    scatter = Tensor3();
  }
}

EStepSummary e_step(const Matrix& x, const Centres& components, const Vector& log_weights,
                    const Labels* groups, const EStepOptions& options, MixtureCounts& counts) {
  check_inputs(x, components, log_weights.size(), "E-step");
  const std::size_t n_rows = x.shape(0), m = components.count();
  View view;
  view.log_weights = {log_weights.data()};
  view.counts = &counts;
  if (groups) {
    if (groups->size() != n_rows)
      throw ShapeError("E-step: " + std::to_string(groups->size()) + " group labels for " +
                       std::to_string(n_rows) + " rows");
    if (components.owner.size() != m)
      throw ShapeError("E-step: group labels were given but the components have no owners");
    view.allowed = groups;
    view.owner = &components.owner;
  }
  std::vector<View> views{view};
  EStepSummary summary;
  summary.row_log_likelihood = Vector::from_shape({n_rows});
  const EStepTotals t = run_e_step(x, components, views, options, 0, &summary.row_log_likelihood);
  summary.log_likelihood = t.log_likelihood[0];
  summary.fallback_rows = t.fallback_rows;
  summary.mean_candidates = t.rows ? t.evaluated / double(t.rows) : 0.0;
  return summary;
}

EStepSummary e_step(const Matrix& x, const Centres& components, const Matrix& log_weights,
                    const Labels& classes, const EStepOptions& options, MixtureCounts& counts) {
  check_inputs(x, components, log_weights.dimension() == 2 ? log_weights.shape(0) : 0,
               "class-weighted E-step");
  const std::size_t n_rows = x.shape(0), m = components.count(), k = log_weights.shape(1);
  if (classes.size() != n_rows)
    throw ShapeError("class-weighted E-step: " + std::to_string(classes.size()) +
                     " class labels for " + std::to_string(n_rows) + " rows");
  for (std::size_t n = 0; n < n_rows; ++n)
    if (classes(n) < 0 || std::size_t(classes(n)) >= k)
      throw ShapeError("class-weighted E-step: row " + std::to_string(n) + " has class " +
                       std::to_string(classes(n)) + " but there are " + std::to_string(k) +
                       " weight columns");
  // Columns of log pi (M x K, row-major) as contiguous vectors.
  std::vector<Vector> columns(k, Vector::from_shape({m}));
  View view;
  for (std::size_t c = 0; c < k; ++c) {
    for (std::size_t j = 0; j < m; ++j) columns[c](j) = log_weights(j, c);
    view.log_weights.push_back(columns[c].data());
  }
  view.weight_groups = &classes;
  view.class_counts = true;
  view.counts = &counts;
  if (components.owner.size() == m) {
    view.allowed = &classes;
    view.owner = &components.owner;
  }
  std::vector<View> views{view};
  EStepSummary summary;
  summary.row_log_likelihood = Vector::from_shape({n_rows});
  const EStepTotals t = run_e_step(x, components, views, options, k, &summary.row_log_likelihood);
  summary.log_likelihood = t.log_likelihood[0];
  summary.fallback_rows = t.fallback_rows;
  summary.mean_candidates = t.rows ? t.evaluated / double(t.rows) : 0.0;
  return summary;
}

DiscriminativeSummary e_step_discriminative(const Matrix& x, const Labels& classes,
                                            const Centres& components,
                                            const Vector& log_weights_numerator,
                                            const Vector& log_weights_denominator,
                                            const EStepOptions& options, MixtureCounts& numerator,
                                            MixtureCounts& denominator) {
  check_inputs(x, components, log_weights_numerator.size(), "discriminative E-step");
  check_inputs(x, components, log_weights_denominator.size(), "discriminative E-step");
  const std::size_t n_rows = x.shape(0), m = components.count();
  if (classes.size() != n_rows)
    throw ShapeError("discriminative E-step: " + std::to_string(classes.size()) +
                     " class labels for " + std::to_string(n_rows) + " rows");
  if (components.owner.size() != m)
    throw ShapeError("discriminative E-step: the components have no owner classes");
  // Numerator: the row's own class, weights w_jg; denominator: the evidence mixture, weights
  // P(y) w_jg. A row's fallback candidates serve both.
  std::vector<View> views(2);
  views[0].log_weights = {log_weights_numerator.data()};
  views[0].allowed = &classes;
  views[0].owner = &components.owner;
  views[0].counts = &numerator;
  views[1].log_weights = {log_weights_denominator.data()};
  views[1].counts = &denominator;
  const EStepTotals t = run_e_step(x, components, views, options, 0, nullptr);
  DiscriminativeSummary summary;
  summary.log_numerator = t.log_likelihood[0];
  summary.log_denominator = t.log_likelihood[1];
  summary.fallback_rows = t.fallback_rows;
  summary.mean_candidates = t.rows ? t.evaluated / double(t.rows) : 0.0;
  return summary;
}

}  // namespace radial
