// The assignment step of k-means (see kmeans_assignment.hpp): each row to its nearest centre
// with Hamerly's bounds, the GEMM identity for the rows they cannot settle, and the distance
// kernels.
#include "kmeans_assignment.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "radial/core/errors.hpp"
#include "radial/exec/cpu.hpp"
#include "radial/exec/parallel.hpp"
#include "kmeans_bounds.hpp"
#include "kmeans_screen.hpp"

namespace radial::kmeans_detail {
namespace {

using detail::round_down;
using detail::round_up;

// The same with four partial sums (independent add chains, about four times the throughput).
double squared_distance4(const double* a, const double* b, std::size_t d) {
  double s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= d; i += 4)
    for (std::size_t l = 0; l < 4; ++l) {
      const double t = a[i + l] - b[i + l];
      s[l] += t * t;
    }
  for (; i < d; ++i) {
    const double t = a[i] - b[i];
    s[0] += t * t;
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// lower_rows_kernel's portable loop (the AVX2 one below repeats it: its distance inlines only
// into a function of its target).
double lower_rows(const double* x, std::size_t d, const double* c, std::size_t first,
                  std::size_t count, double* d2) {
  double sum = 0;
  for (std::size_t i = first; i < first + count; ++i) {
    d2[i] = std::min(d2[i], squared_distance4(x + i * d, c, d));
    sum += d2[i];
  }
  return sum;
}

#if defined(__x86_64__) && defined(__GNUC__)
// squared_distance4 with its four sums in one AVX2 register: the same operations (multiply,
// then add: no FMA in this target) in the same order, so the same bits, at a quarter of the
// instructions.
__attribute__((target("avx2"), always_inline)) inline double squared_distance4_avx2(
    const double* a, const double* b, std::size_t d) {
  __m256d sum = _mm256_setzero_pd();
  std::size_t i = 0;
  for (; i + 4 <= d; i += 4) {
    const __m256d t = _mm256_sub_pd(_mm256_loadu_pd(a + i), _mm256_loadu_pd(b + i));
    sum = _mm256_add_pd(sum, _mm256_mul_pd(t, t));
  }
  alignas(32) double s[4];
  _mm256_store_pd(s, sum);
  for (; i < d; ++i) {
    const double t = a[i] - b[i];
    s[0] += t * t;
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// lower_rows with the distance inlined (k-means++ seeding at M = 4,311 made 2 x 10^8 calls).
__attribute__((target("avx2"))) double lower_rows_avx2(const double* x, std::size_t d,
                                                       const double* c, std::size_t first,
                                                       std::size_t count, double* d2) {
  double sum = 0;
  for (std::size_t i = first; i < first + count; ++i) {
    d2[i] = std::min(d2[i], squared_distance4_avx2(x + i * d, c, d));
    sum += d2[i];
  }
  return sum;
}

// lower_rows_avx2 on rows held by coordinate four by four: for each quad the four partial sums
// of squared_distance4 (coordinate i into sum i mod 4 below the last whole four, then into sum
// 0) as four vectors of four rows, added as it adds them; then the minimum and the running sum
// in row order.
__attribute__((target("avx2"))) double lower_quads_avx2(const double* quads, const double* x,
                                                        std::size_t d, const double* c,
                                                        std::size_t first, std::size_t count,
                                                        double* d2) {
  const std::size_t whole = d / 4 * 4, end = first + count;
  double sum = 0;
  std::size_t i = first;
  for (; i + 4 <= end; i += 4) {
    const double* q = quads + i * d;  // quad i / 4: d x 4 values
    __m256d s[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(),
                    _mm256_setzero_pd()};
    std::size_t a = 0;
    for (; a < whole; a += 4)
      for (std::size_t l = 0; l < 4; ++l) {
        const __m256d t = _mm256_sub_pd(_mm256_loadu_pd(q + (a + l) * 4), _mm256_set1_pd(c[a + l]));
        s[l] = _mm256_add_pd(s[l], _mm256_mul_pd(t, t));
      }
    for (; a < d; ++a) {
      const __m256d t = _mm256_sub_pd(_mm256_loadu_pd(q + a * 4), _mm256_set1_pd(c[a]));
      s[0] = _mm256_add_pd(s[0], _mm256_mul_pd(t, t));
    }
    const __m256d v = _mm256_add_pd(_mm256_add_pd(s[0], s[1]), _mm256_add_pd(s[2], s[3]));
    const __m256d lowered = _mm256_min_pd(v, _mm256_loadu_pd(d2 + i));  // v < d2 ? v : d2
    _mm256_storeu_pd(d2 + i, lowered);
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, lowered);
    for (const double value : lanes) sum += value;
  }
  for (; i < end; ++i) {
    d2[i] = std::min(d2[i], squared_distance4_avx2(x + i * d, c, d));
    sum += d2[i];
  }
  return sum;
}
#endif

// out[k] = ||c - centre k||^2 for k in [first, m), from the centres transposed (ct: d rows of
// m values), the centres vectorised: a bound's sum (kmeans' rel allows any summation order), not
// squared_distance4's bits.
void gaps_from(const double* ct, std::size_t m, std::size_t d, const double* c, std::size_t first,
               double* out) {
  for (std::size_t k = first; k < m; ++k) out[k] = 0;
  for (std::size_t a = 0; a < d; ++a) {
    const double* row = ct + a * m;
    const double ca = c[a];
    for (std::size_t k = first; k < m; ++k) {
      const double t = row[k] - ca;
      out[k] += t * t;
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) void gaps_from_avx2(const double* ct, std::size_t m,
                                                        std::size_t d, const double* c,
                                                        std::size_t first, double* out) {
  const std::size_t body = first + (m - first) / 4 * 4;
  for (std::size_t k = first; k < body; k += 4) {
    __m256d sum = _mm256_setzero_pd();
    for (std::size_t a = 0; a < d; ++a) {
      const __m256d t = _mm256_sub_pd(_mm256_loadu_pd(ct + a * m + k), _mm256_set1_pd(c[a]));
      sum = _mm256_fmadd_pd(t, t, sum);
    }
    _mm256_storeu_pd(out + k, sum);
  }
  gaps_from(ct, m, d, c, body, out);
}
#endif

// Smallest and second-smallest of cn[j] + v[j] over j < m, and the lowest index of the
// smallest: 16 independent lanes (branch-free, so the compiler vectorises them; built for
// AVX-512, AVX2 and baseline x86-64, chosen at load time), merged preferring lower indices.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void two_smallest(const float* cn, const float* v, std::size_t m, float& best_out,
                  float& second_out, std::size_t& index_out) {
  constexpr std::size_t lanes = 16;
  const float inf = std::numeric_limits<float>::infinity();
  float best[lanes], second[lanes];
  std::uint32_t index[lanes];
  for (std::size_t l = 0; l < lanes; ++l) {
    best[l] = second[l] = inf;
    index[l] = 0;
  }
  std::size_t j = 0;
  for (; j + lanes <= m; j += lanes)
    for (std::size_t l = 0; l < lanes; ++l) {
      const float value = cn[j + l] + v[j + l];
      second[l] = std::min(second[l], std::max(best[l], value));
      index[l] = value < best[l] ? std::uint32_t(j + l) : index[l];
      best[l] = std::min(best[l], value);
    }
  float b = inf, s = inf;
  std::size_t bi = 0;
  auto merge = [&](float value, std::size_t i, float next) {
    if (value < b || (value == b && i < bi)) {
      s = std::min(std::min(s, b), next);
      b = value;
      bi = i;
    } else {
      s = std::min(std::min(s, value), next);
    }
  };
  for (std::size_t l = 0; l < lanes; ++l) merge(best[l], index[l], second[l]);
  for (; j < m; ++j) merge(cn[j] + v[j], j, inf);
  best_out = b;
  second_out = s;
  index_out = bi;
}

}  // namespace

LowerQuads lower_quads_kernel() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (use_avx2_kernels()) return lower_quads_avx2;
#endif
  return nullptr;
}

std::vector<double> to_quads(const Matrix& x) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  std::vector<double> out(n / 4 * 4 * d);
  for (std::size_t i = 0; i < n / 4 * 4; ++i)
    for (std::size_t a = 0; a < d; ++a) out[(i / 4) * 4 * d + a * 4 + i % 4] = x(i, a);
  return out;
}

LowerRows lower_rows_kernel() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (use_avx2_kernels()) return lower_rows_avx2;
#endif
  return lower_rows;
}

BoundedAssignment::BoundedAssignment(const Matrix& x, int threads)
    : x_(x),
      n_(x.shape(0)),
      d_(x.shape(1)),
      threads_(threads),
      rel_(4.0 * double(d_ + 4) * std::numeric_limits<double>::epsilon()),
      label_(n_, 0),
      upper_(n_, 0.0f),
      lower_(n_, 0.0f) {
  // The single-precision screen needs values far from float's overflow and underflow.
  double max_norm2 = 0;
  for (std::size_t i = 0; i < n_; ++i) max_norm2 = std::max(max_norm2, norm2(x.data() + i * d_, d_));
  single_precision_ = max_norm2 < 1e30;
}

void BoundedAssignment::reassign(std::size_t i, std::uint32_t j) {
  label_[i] = j;
  upper_[i] = std::numeric_limits<float>::infinity();
  lower_[i] = 0.0f;
}

void BoundedAssignment::pass(const Matrix& centres, const CentreGeometry& g, bool bounded) {
  const std::size_t workers = worker_count(n_, parallel_block_rows, threads_);
  const bool single = single_precision_ && g.max_norm2 > 1e-20 && g.max_norm2 < 1e30;
  std::vector<Scratch> scratch(workers);
  for (auto& s : scratch) {
    s.xb = xt::empty<double>({kGemmRows, d_});
    s.cross = xt::empty<double>({kGemmRows, centres.shape(0)});
    s.xf.resize(kGemmRows * d_);
    s.cross_f.resize(kGemmRows * centres.shape(0));
    s.xn2.resize(kGemmRows);
    s.best_f.resize(kGemmRows);
    s.second_f.resize(kGemmRows);
    s.index_f.resize(kGemmRows);
  }
  parallel_for_blocks(n_, parallel_block_rows, threads_,
                      [&](std::size_t w, const RowBlock& b) {
                        Scratch& s = scratch[w];
                        s.rows.clear();
                        if (bounded)
                          screen(b, centres, g, s);
                        else
                          for (std::size_t i = b.first; i < b.first + b.count; ++i)
                            s.rows.push_back(i);
                        // The screen's close rows are gathered over the whole block before
                        // their double-precision pass: each GEMM packs all M centres, which
                        // for a few rows at a time cost more than the products (M = 2 x 10^4,
                        // d = 28: 38% of a pass in dgemm_otcopy against 9% in its kernel).
                        s.close.clear();
                        for (std::size_t k = 0; k < s.rows.size(); k += kGemmRows) {
                          const std::size_t count = std::min(kGemmRows, s.rows.size() - k);
                          if (single)
                            screen_single(s.rows.data() + k, count, centres.shape(0), g, s);
                          else
                            nearest_two(s.rows.data() + k, count, centres, g, s);
                        }
                        for (std::size_t c = 0; c < s.close.size(); c += kGemmRows)
                          nearest_two(s.close.data() + c, std::min(kGemmRows, s.close.size() - c),
                                      centres, g, s);
                      });
}

void BoundedAssignment::screen(const RowBlock& b, const Matrix& centres, const CentreGeometry& g,
                               Scratch& s) {
  s.failing.resize(b.count);
  s.bounds.resize(b.count);
  const detail::BoundShift shift{g.drift.data(), g.half_gap.data(),
                                 std::uint32_t(g.drift_argmax), g.drift_max, g.drift_second};
  const std::size_t found =
      detail::move_bounds(label_.data() + b.first, upper_.data() + b.first,
                          lower_.data() + b.first, b.count, shift, s.failing.data(),
                          s.bounds.data());
  const double grow = 1.0 + rel_;
  for (std::size_t r = 0; r < found; ++r) {
    const std::size_t i = b.first + s.failing[r];
    // Tighten the upper bound to the exact distance before giving up on the row.
    const double exact =
        std::sqrt(squared_distance(x_.data() + i * d_, centres.data() + label_[i] * d_, d_)) *
        grow;
    upper_[i] = round_up(exact);
    if (exact <= s.bounds[r]) continue;
    s.rows.push_back(i);
  }
}

void BoundedAssignment::screen_single(const std::size_t* rows, std::size_t count, std::size_t m,
                                      const CentreGeometry& g, Scratch& s) {
  const bool fused = detail::screen_available();
  const float scale = fused ? -2.0f : 1.0f;  // exact in binary floating point
  for (std::size_t r = 0; r < count; ++r) {
    const double* row = x_.data() + rows[r] * d_;
    float* out = s.xf.data() + r * d_;
    for (std::size_t k = 0; k < d_; ++k) out[k] = scale * float(row[k]);
    s.xn2[r] = norm2(row, d_);
  }
  if (fused) {
    detail::screen_rows(s.xf.data(), count, g.panels, s.best_f.data(), s.second_f.data(),
                        s.index_f.data());
  } else {
    cxxblas::gemm<xt::blas_index_t>(
        cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::Trans, xt::blas_index_t(count),
        xt::blas_index_t(m), xt::blas_index_t(d_), -2.0f, s.xf.data(), xt::blas_index_t(d_),
        g.centres_f.data(), xt::blas_index_t(d_), 0.0f, s.cross_f.data(), xt::blas_index_t(m));
    for (std::size_t r = 0; r < count; ++r) {
      std::size_t best_j;
      two_smallest(g.norm2_f.data(), s.cross_f.data() + r * m, m, s.best_f[r], s.second_f[r],
                   best_j);
      s.index_f[r] = std::uint32_t(best_j);
    }
  }
  for (std::size_t r = 0; r < count; ++r) {
    const double best = s.best_f[r], second = s.second_f[r], xn2 = s.xn2[r];
    // |error| of each value <= (2d + 4) eps_f (|x|^2 + |c|^2) (conversions, products, sums),
    // allowed for with a factor 2 to spare.
    const double slack = rel_single_ * (xn2 + g.max_norm2);
    if (!(second - best > 2.0 * slack)) {
      s.close.push_back(rows[r]);
      continue;
    }
    const std::size_t i = rows[r];
    label_[i] = s.index_f[r];
    upper_[i] = round_up(std::sqrt(std::max(0.0, xn2 + best + slack)));
    lower_[i] = round_down(std::sqrt(std::max(0.0, xn2 + second - slack)));
  }
}

void BoundedAssignment::nearest_two(const std::size_t* rows, std::size_t count,
                                    const Matrix& centres, const CentreGeometry& g, Scratch& s) {
  const std::size_t m = centres.shape(0);
  // Contiguous rows are read in place; scattered ones are gathered first.
  const double* xb = x_.data() + rows[0] * d_;
  if (rows[count - 1] - rows[0] + 1 != count) {
    for (std::size_t r = 0; r < count; ++r)
      std::copy_n(x_.data() + rows[r] * d_, d_, s.xb.data() + r * d_);
    xb = s.xb.data();
  }
  // cross(r, j) = -2 x_r . c_j (scaling by -2 is exact)
  cxxblas::gemm<xt::blas_index_t>(cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::Trans,
                                  xt::blas_index_t(count), xt::blas_index_t(m),
                                  xt::blas_index_t(d_), -2.0, xb, xt::blas_index_t(d_),
                                  centres.data(), xt::blas_index_t(d_), 0.0, s.cross.data(),
                                  xt::blas_index_t(m));
  const double* cn = g.norm2.data();
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < count; ++r) {
    const double* row = s.cross.data() + r * m;
    double best = inf, second = inf;
    std::size_t best_j = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const double v = cn[j] + row[j];
      if (v < second) {
        if (v < best) {
          second = best;
          best = v;
          best_j = j;
        } else {
          second = v;
        }
      }
    }
    const std::size_t i = rows[r];
    const double xn2 = norm2(xb + r * d_, d_);
    // Absolute error of a GEMM-identity squared distance: at most ~(d + 4) eps (|x|^2 + |c|^2).
    const double slack = rel_ * (xn2 + g.max_norm2);
    label_[i] = std::uint32_t(best_j);
    upper_[i] = round_up(std::sqrt(std::max(0.0, xn2 + best + slack)));
    lower_[i] = m > 1 ? round_down(std::sqrt(std::max(0.0, xn2 + second - slack)))
                      : std::numeric_limits<float>::infinity();
  }
}

void measure_centres(const Matrix& centres, const Matrix* previous, double rel, int threads,
                     CentreGeometry& g) {
  const std::size_t m = centres.shape(0), d = centres.shape(1);
  g.norm2 = Vector::from_shape({m});
  g.max_norm2 = 0;
  for (std::size_t j = 0; j < m; ++j) {
    g.norm2(j) = norm2(centres.data() + j * d, d);
    g.max_norm2 = std::max(g.max_norm2, g.norm2(j));
  }
  g.centres_f.assign(centres.begin(), centres.end());
  g.norm2_f.assign(g.norm2.begin(), g.norm2.end());
  if (detail::screen_available()) detail::pack_centres(centres, g.norm2, g.panels);
  // Half the distance to the nearest other centre: the squared distances of the pairs j < k
  // (a bound only, rel covers any summation order: gaps_from), minimised per centre by each
  // worker over its blocks of j, then across the workers, and one square root per centre. A
  // minimum is exact, so the values do not depend on the thread count. At M = 4,311 (the
  // generator of issue 45 at N = 50,000) the pairs, one squared_distance4 call each on one
  // thread, took 0.08 s of each Lloyd iteration.
  constexpr std::size_t gap_block = 32;
  // Below 1,024 centres one thread: a region's wake-up would cost more than the pairs.
  const int gap_threads = m >= 1024 ? threads : 1;
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t workers = worker_count(m, gap_block, gap_threads);
  std::vector<std::vector<double>> nearest(workers, std::vector<double>(m, inf));
  std::vector<std::vector<double>> gap2(workers, std::vector<double>(m));
  std::vector<double> ct(d * m);  // the centres transposed: the pairs vectorise over k
  for (std::size_t k = 0; k < m; ++k)
    for (std::size_t a = 0; a < d; ++a) ct[a * m + k] = centres(k, a);
  auto gaps = gaps_from;
#if defined(__x86_64__) && defined(__GNUC__)
  if (use_avx2_kernels()) gaps = gaps_from_avx2;
#endif
  parallel_for_blocks(m, gap_block, gap_threads, [&](std::size_t w, const RowBlock& b) {
    std::vector<double>& near = nearest[w];
    double* to = gap2[w].data();
    for (std::size_t j = b.first; j < b.first + b.count; ++j) {
      gaps(ct.data(), m, d, centres.data() + j * d, j + 1, to);
      double own = near[j];
      for (std::size_t k = j + 1; k < m; ++k) {
        own = std::min(own, to[k]);
        near[k] = std::min(near[k], to[k]);
      }
      near[j] = own;
    }
  });
  g.half_gap.assign(m, inf);
  for (std::size_t j = 0; j < m; ++j) {
    double gap2 = inf;
    for (const std::vector<double>& near : nearest) gap2 = std::min(gap2, near[j]);
    g.half_gap[j] = 0.5 * std::sqrt(gap2) * (1.0 - rel);
  }
  g.drift.assign(m, 0.0);
  g.drift_max = g.drift_second = 0;
  g.drift_argmax = 0;
  if (!previous) return;
  for (std::size_t j = 0; j < m; ++j) {
    const double p =
        std::sqrt(squared_distance(centres.data() + j * d, previous->data() + j * d, d)) *
        (1.0 + rel);
    g.drift[j] = p;
    if (p > g.drift_max) {
      g.drift_second = g.drift_max;
      g.drift_max = p;
      g.drift_argmax = j;
    } else if (p > g.drift_second) {
      g.drift_second = p;
    }
  }
}

void check_data(const Matrix& x, std::size_t rows, std::size_t count, const char* where) {
  if (count == 0) {
    throw InputError(std::string(where) + ": the number of centres is 0; set count >= 1");
  }
  if (x.dimension() != 2 || x.shape(1) == 0) {
    throw InputError(std::string(where) + ": the data have no feature columns");
  }
  if (count > rows) {
    std::ostringstream msg;
    msg << where << ": " << count << " centres requested but the data have only " << rows
        << " rows; set count <= " << rows;
    throw InputError(msg.str());
  }
}

}  // namespace radial::kmeans_detail
