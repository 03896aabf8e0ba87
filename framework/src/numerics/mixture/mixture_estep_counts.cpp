// The counts of an E-step block (see mixture_estep_counts.hpp).
#include "mixture_estep_counts.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "radial/numerics/small_gemm.hpp"

namespace radial::mixture_detail {

namespace {

// accumulate_block's shift from the shared g to a component's centre m_j cancels when
// the terms S(g) + C(1) e^2 dwarf the result; beyond this ratio (in any dimension) the
// component's block is summed directly about m_j, so the product form loses at most ~12 bits
// more than the direct sum.
constexpr double shift_cancellation_limit = 4096;

// Values of F per product (8 MB): Full features of large d are made in row chunks.
constexpr std::size_t feature_budget = std::size_t(1) << 20;

// f (count x P) = [q(y), y, 1] for rows first.. of xb, with y = x - g and q(y) = y^2
// elementwise (Diagonal, Spherical) or (y_a y_b)_{a<=b} (Full), SquaredDistances' layout.
void shifted_features(const Matrix& xb, std::size_t first, std::size_t count,
                      const std::vector<double>& g, bool full, Matrix& f) {
  const std::size_t d = xb.shape(1);
  const std::size_t q = full ? d * (d + 1) / 2 : d, p = q + d + 1;
  if (f.shape(0) != count || f.shape(1) != p) f.resize({count, p});
  for (std::size_t n = 0; n < count; ++n) {
    const double* x = &xb(first + n, 0);
    double* out = &f(n, 0);
    double* y = out + q;
    for (std::size_t k = 0; k < d; ++k) y[k] = x[k] - g[k];
    if (full) {
      std::size_t i = 0;
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = a; b < d; ++b) out[i++] = y[a] * y[b];
    } else {
      for (std::size_t k = 0; k < d; ++k) out[k] = y[k] * y[k];
    }
    out[p - 1] = 1.0;
  }
}

// Component j's statistics of one block summed directly about its reference m_j (the
// per-pair form, for the rare block where the shift cancels): replaces cy and scatter terms.
void direct_block(const Matrix& xb, const Matrix& r, std::size_t j, const double* ref, bool full,
                  double* cy, double* s) {
  const std::size_t rows = xb.shape(0), d = xb.shape(1);
  std::vector<double> e(d);
  std::fill(cy, cy + d, 0.0);
  std::fill(s, s + (full ? d * d : d), 0.0);
  for (std::size_t n = 0; n < rows; ++n) {
    const double w = r(n, j);
    if (w == 0) continue;
    for (std::size_t k = 0; k < d; ++k) {
      e[k] = xb(n, k) - ref[k];
      cy[k] += w * e[k];
    }
    if (full) {
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = a; b < d; ++b) s[a * d + b] += w * e[a] * e[b];
    } else {
      for (std::size_t k = 0; k < d; ++k) s[k] += w * e[k] * e[k];
    }
  }
  if (full)
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < a; ++b) s[a * d + b] = s[b * d + a];
}

}  // namespace

// counts += the statistics of responsibilities r (rows x M) over the block xb (rows x d), in one
// product for all components: G = F^T R with F the features of y = x - g, so C(1), C(y) and the
// scatter about g. F is the density's (`features`, about `feature_g`: SquaredDistances' Full
// quadratic form, g the mean of the centre means) or made here about the block's column means
// (shifted_features). Then each component's terms are moved to its reference m_j with
// e = m_j - g (exact algebra):
//   C(x - m_j) = C(y) - C(1) e,   S(m_j) = S(g) - e C(y)^T - C(y) e^T + C(1) e e^T.
// x - g is exact for data far from the origin (same binade), so only |m_j - g| / sigma_j can
// cancel, and a component whose shift would lose too much is summed directly (direct_block).
void accumulate_block(const Matrix& xb, const Matrix& r, const Matrix* features,
                      const double* feature_g, MixtureCounts& counts, BlockScratch& s) {
  const std::size_t rows = xb.shape(0), m = r.shape(1), d = xb.shape(1);
  if (rows == 0) return;
  const bool full = counts.shape == Shape::Full;
  const std::size_t q = full ? d * (d + 1) / 2 : d, p = q + d + 1;
  if (s.stats.shape(0) != p || s.stats.shape(1) != m) s.stats.resize({p, m});
  if (features) {
    s.g.assign(feature_g, feature_g + d);
    small_gemm(p, m, rows, features->data(), 1, p, r.data(), m, s.stats.data(), m, false);
  } else {
    s.g.assign(d, 0.0);
    for (std::size_t n = 0; n < rows; ++n)
      for (std::size_t k = 0; k < d; ++k) s.g[k] += xb(n, k);
    for (double& v : s.g) v /= double(rows);
    const std::size_t chunk = std::max<std::size_t>(1, feature_budget / p);
    for (std::size_t from = 0; from < rows; from += chunk) {
      const std::size_t count = std::min(chunk, rows - from);
      shifted_features(xb, from, count, s.g, full, s.f);
      small_gemm(p, m, count, s.f.data(), 1, p, &r(from, 0), m, s.stats.data(), m, from > 0);
    }
  }

  std::vector<double> e(d), cyg(d), cy(d), sm(full ? d * d : d);
  for (std::size_t j = 0; j < m; ++j) {
    const double c1 = s.stats(p - 1, j);
    const double* ref = &counts.reference(j, 0);
    for (std::size_t k = 0; k < d; ++k) {
      e[k] = ref[k] - s.g[k];
      cyg[k] = s.stats(q + k, j);
      cy[k] = cyg[k] - c1 * e[k];
    }
    bool cancels = false;
    if (full) {
      std::size_t i = 0;
      for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = a; b < d; ++b, ++i) {
          const double sg = s.stats(i, j);
          const double v = sg - e[a] * cyg[b] - cyg[a] * e[b] + c1 * e[a] * e[b];
          sm[a * d + b] = sm[b * d + a] = v;
          if (a == b && sg + c1 * e[a] * e[a] > shift_cancellation_limit * v) cancels = true;
        }
    } else {
      for (std::size_t k = 0; k < d; ++k) {
        const double sg = s.stats(k, j);
        sm[k] = sg + e[k] * (c1 * e[k] - 2.0 * cyg[k]);
        if (sg + c1 * e[k] * e[k] > shift_cancellation_limit * sm[k]) cancels = true;
      }
    }
    if (cancels) direct_block(xb, r, j, ref, full, cy.data(), sm.data());
    counts.c1(j) += c1;
    double* cx = &counts.cx(j, 0);
    double* cyj = &counts.cy(j, 0);
    for (std::size_t k = 0; k < d; ++k) {
      cx[k] += cyg[k] + c1 * s.g[k];
      cyj[k] += cy[k];
    }
    double* out = full ? &counts.scatter(j, 0, 0) : &counts.scatter_diagonal(j, 0);
    add_to(out, sm.data(), sm.size());
  }
}

// counts.class_c1 / class_cx += the block's responsibilities split by the rows' classes: the
// rows grouped by class, then one product [x, 1]^T R per class present. Row n of xb is data row
// index[n] (index null: first + n).
void accumulate_classes(const Matrix& xb, const Matrix& r, const Labels& classes, std::size_t first,
                        const std::size_t* index, MixtureCounts& counts, BlockScratch& s) {
  const std::size_t rows = xb.shape(0), m = r.shape(1), d = xb.shape(1);
  const std::size_t k = counts.class_c1.shape(1), w = d + 1;
  s.starts.assign(k + 1, 0);
  const auto row = [&](std::size_t n) { return index ? index[n] : first + n; };
  for (std::size_t n = 0; n < rows; ++n) ++s.starts[std::size_t(classes(row(n))) + 1];
  for (std::size_t c = 0; c < k; ++c) s.starts[c + 1] += s.starts[c];
  s.order.assign(s.starts.begin(), s.starts.end() - 1);  // next slot of each class
  if (s.z.shape(0) != rows || s.z.shape(1) != w) s.z.resize({rows, w});
  if (s.rz.shape(0) != rows || s.rz.shape(1) != m) s.rz.resize({rows, m});
  for (std::size_t n = 0; n < rows; ++n) {
    const std::size_t at = s.order[std::size_t(classes(row(n)))]++;
    std::copy(&xb(n, 0), &xb(n, 0) + d, &s.z(at, 0));
    s.z(at, d) = 1.0;
    std::copy(&r(n, 0), &r(n, 0) + m, &s.rz(at, 0));
  }
  if (s.class_stats.shape(0) != w || s.class_stats.shape(1) != m) s.class_stats.resize({w, m});
  for (std::size_t c = 0; c < k; ++c) {
    const std::size_t from = s.starts[c], count = s.starts[c + 1] - from;
    if (count == 0) continue;
    small_gemm(w, m, count, &s.z(from, 0), 1, w, &s.rz(from, 0), m, s.class_stats.data(), m,
               false);
    for (std::size_t j = 0; j < m; ++j) {
      counts.class_c1(j, c) += s.class_stats(d, j);
      double* cx = &counts.class_cx(j, c, 0);
      for (std::size_t a = 0; a < d; ++a) cx[a] += s.class_stats(a, j);
    }
  }
}

}  // namespace radial::mixture_detail
