// Lloyd's k-means (lecture notes, paper 001, "k-Means Algorithm": partition optimisation, then
// prototype optimisation = mean of each S_m, alternated) with k-means++ seeding (Arthur &
// Vassilvitskii 2007: each new centre drawn with probability proportional to D(x)^2).
//
// The assignment step is the hot loop: Hamerly's bounds skip the rows whose centre cannot have
// changed, and the other rows meet every centre through the GEMM identity
// ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c, one dgemm per gathered group of rows fused with the
// arg min, so that no N x M distance matrix is ever stored. State per row: a 4-byte label and
// two float bounds.
#include "radial/numerics/kmeans.hpp"

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

#include "radial/distributed/collectives.hpp"
#include "radial/errors.hpp"
#include "radial/distributed/sharded_rows.hpp"
#include "radial/numerics/cpu.hpp"
#include "radial/parallel.hpp"
#include "kmeans_bounds.hpp"
#include "kmeans_screen.hpp"

namespace radial {
namespace {

using detail::round_down;
using detail::round_up;

// Rows per GEMM call of the assignment: 256 rows x 256 centres of distances (512 KB) stay in L2
// while the arg min reads them.
constexpr std::size_t kGemmRows = 256;

double squared_distance(const double* a, const double* b, std::size_t d) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) {
    const double t = a[i] - b[i];
    s += t * t;
  }
  return s;
}

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

#if defined(__x86_64__) && defined(__GNUC__)
// squared_distance4 with its four sums in one AVX2 register: the same operations (multiply,
// then add: no FMA in this target) in the same order, so the same bits, at a quarter of the
// instructions.
__attribute__((target("avx2"))) double squared_distance4_avx2(const double* a, const double* b,
                                                              std::size_t d) {
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
#endif

using Distance4 = double (*)(const double*, const double*, std::size_t);

// squared_distance4 on this CPU (use_avx2_kernels: not under RADIAL_PORTABLE_KERNELS).
Distance4 distance4_kernel() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (use_avx2_kernels()) return squared_distance4_avx2;
#endif
  return squared_distance4;
}

double norm2(const double* a, std::size_t d) {
  double s = 0;
  for (std::size_t k = 0; k < d; ++k) s += a[k] * a[k];
  return s;
}

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

// Per-iteration facts about the centres that the bound tests need (Hamerly 2010).
struct CentreGeometry {
  Vector norm2;                 // ||c_j||^2 for the GEMM identity
  double max_norm2 = 0;
  std::vector<double> drift;    // upper bound on ||c_j(new) - c_j(old)||
  double drift_max = 0, drift_second = 0;
  std::size_t drift_argmax = 0;
  std::vector<double> half_gap; // lower bound on min_{j' != j} ||c_j - c_j'|| / 2
  std::vector<float> centres_f; // the centres and ||c_j||^2 in single precision, for the screen
  std::vector<float> norm2_f;
  detail::CentrePanels panels;  // the same, packed for the fused kernel
};

// Lloyd's assignment with Hamerly's bounds (G. Hamerly, "Making k-means even faster", SDM 2010):
// for row i with centre a(i), u(i) >= ||x_i - c_a|| and l(i) <= min_{j != a} ||x_i - c_j||. When
// u(i) <= max(l(i), s(a)), s(a) = half the distance from c_a to its nearest other centre, no other
// centre can be nearer (triangle inequality), so the row keeps its centre without computing a
// distance. After the centres move, u grows by the drift of c_a and l shrinks by the largest
// drift of the others. Rows that fail the test are re-assigned by the GEMM identity
// ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c against every centre, gathered per block, so the result
// is Lloyd's partition: only distances that cannot change the arg min are skipped. Every bound
// carries a rounding allowance, so a bound is never tighter than the true distance.
class BoundedAssignment {
 public:
  BoundedAssignment(const Matrix& x, int threads)
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

  std::uint32_t label(std::size_t i) const { return label_[i]; }

  // Every row against every centre (first iteration, and the final check's fallback).
  void assign_all(const Matrix& centres, const CentreGeometry& g) {
    pass(centres, g, /*bounded=*/false);
  }

  // Moves the bounds by the centres' drift, then re-assigns only the rows the bounds cannot settle.
  void assign_bounded(const Matrix& centres, const CentreGeometry& g) {
    pass(centres, g, /*bounded=*/true);
  }

  // Row i now belongs to centre j (empty-cluster repair): bounds unknown, so checked next pass.
  void reassign(std::size_t i, std::uint32_t j) {
    label_[i] = j;
    upper_[i] = std::numeric_limits<float>::infinity();
    lower_[i] = 0.0f;
  }

  // Frees the bounds once no pass is left (the caller's N-vector of labels comes next).
  void release_bounds() {
    std::vector<float>().swap(upper_);
    std::vector<float>().swap(lower_);
  }

 private:
  struct Scratch {
    std::vector<std::size_t> rows;   // rows of the block needing all distances
    std::vector<std::size_t> close;  // of those, rows the single-precision screen cannot settle
    std::vector<std::uint32_t> failing;  // rows of the block the bound test did not settle
    std::vector<double> bounds;          // and their bounds
    std::vector<double> xn2;
    std::vector<float> xf, cross_f, best_f, second_f;
    std::vector<std::uint32_t> index_f;
    Matrix xb = xt::empty<double>({kGemmRows, std::size_t(1)});
    Matrix cross = xt::empty<double>({kGemmRows, std::size_t(1)});
  };

  void pass(const Matrix& centres, const CentreGeometry& g, bool bounded) {
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
                          for (std::size_t k = 0; k < s.rows.size(); k += kGemmRows) {
                            const std::size_t count = std::min(kGemmRows, s.rows.size() - k);
                            if (single) {
                              s.close.clear();
                              screen_single(s.rows.data() + k, count, centres.shape(0), g, s);
                              for (std::size_t c = 0; c < s.close.size(); c += kGemmRows)
                                nearest_two(s.close.data() + c,
                                            std::min(kGemmRows, s.close.size() - c), centres, g, s);
                            } else {
                              nearest_two(s.rows.data() + k, count, centres, g, s);
                            }
                          }
                        });
  }

  // The bound tests of one block (detail::move_bounds); rows they cannot settle go to `rows`.
  void screen(const RowBlock& b, const Matrix& centres, const CentreGeometry& g, Scratch& s) {
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

  // Nearest and second-nearest centre by the GEMM identity in single precision (the fused
  // kernel of kmeans_screen.cpp on AVX-512 or AVX2, else sgemm + a vectorised scan). A row is
  // settled when its two smallest values differ by more than twice the single-precision error
  // bound: then the order of the true distances is the same, and the bounds carry that error.
  // Rows closer than that go to `close` for the double-precision pass, so ties are broken
  // exactly as there.
  void screen_single(const std::size_t* rows, std::size_t count, std::size_t m,
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

  // Nearest and second-nearest centre of `count` rows by one GEMM, lowest index on ties.
  void nearest_two(const std::size_t* rows, std::size_t count, const Matrix& centres,
                   const CentreGeometry& g, Scratch& s) {
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

  const Matrix& x_;
  std::size_t n_, d_;
  int threads_;
  double rel_;  // relative rounding allowance of a directly computed distance
  double rel_single_ = 4.0 * double(2 * d_ + 4) * double(std::numeric_limits<float>::epsilon());
  bool single_precision_ = false;
  std::vector<std::uint32_t> label_;
  std::vector<float> upper_, lower_;
};

// ||c_j||^2, the half gaps s_j and, given the previous centres, the drifts.
void measure_centres(const Matrix& centres, const Matrix* previous, double rel, CentreGeometry& g) {
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
  g.half_gap.assign(m, std::numeric_limits<double>::infinity());
  const Distance4 distance4 = distance4_kernel();
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t k = j + 1; k < m; ++k) {
      // A bound only (rel covers either summation order): the faster sum.
      const double gap =
          std::sqrt(distance4(centres.data() + j * d, centres.data() + k * d, d));
      g.half_gap[j] = std::min(g.half_gap[j], gap);
      g.half_gap[k] = std::min(g.half_gap[k], gap);
    }
  for (double& s : g.half_gap) s = 0.5 * s * (1.0 - rel);
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

// `rows`: the rows over every rank (the data's shard on this rank is x).
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

// Root mean feature variance over the rows of every rank (`rows` of them): the data scale the
// tolerance is relative to (two passes over the rows, row-major, each summed over ranks).
double data_scale(const Matrix& x, std::size_t rows) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  std::vector<double> mean(d, 0.0), var(d, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) mean[k] += x(i, k);
  sum_over_ranks(mean);
  for (double& m : mean) m /= double(rows);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) var[k] += (x(i, k) - mean[k]) * (x(i, k) - mean[k]);
  sum_over_ranks(var);
  double total = 0;
  for (double v : var) total += v / double(rows);
  return std::sqrt(total / double(d));
}

// init = "random": `count` distinct rows drawn uniformly, by a partial Fisher-Yates shuffle of
// the global row indices 0..N-1 with the displaced entries kept in a map (no rank stores N
// indices).
Matrix random_distinct_rows(const Matrix& x, const ShardLayout& layout, std::size_t count,
                            std::mt19937_64& rng) {
  const std::size_t rows = layout.total;
  std::unordered_map<std::size_t, std::size_t> displaced;
  auto at = [&](std::size_t i) {
    const auto it = displaced.find(i);
    return it == displaced.end() ? i : it->second;
  };
  std::vector<std::size_t> picked(count);
  for (std::size_t j = 0; j < count; ++j) {
    std::uniform_int_distribution<std::size_t> pick(j, rows - 1);
    const std::size_t p = pick(rng);
    const std::size_t a = at(j), b = at(p);
    displaced[j] = b;
    displaced[p] = a;
    picked[j] = b;
  }
  return gather_rows(x, layout, picked);
}

// The state of k-means++ seeding (D^2 sampling, Arthur & Vassilvitskii 2007) on this rank's
// rows: D(x)^2, each row's squared distance to its closest chosen centre, and its sum per fixed
// row block (parallel_block_rows).
struct SeedingState {
  SeedingState(const Matrix& x, std::size_t count, int threads)
      : x(x), n(x.shape(0)), d(x.shape(1)), threads(threads),
        centres(xt::empty<double>({count, x.shape(1)})),
        blocks(row_block_count(n, parallel_block_rows)),
        d2(n, std::numeric_limits<double>::infinity()), block_sum(blocks, 0.0), chosen(n, 0) {}

  const Matrix& x;
  std::size_t n, d;
  int threads;
  Matrix centres;
  std::size_t blocks;
  std::vector<double> d2, block_sum;
  std::vector<char> chosen;
};

// D(x)^2 lowered to a new centre c, block by block (in parallel, elementwise), each block's sum
// taken in row order: the same values for any thread count.
void lower_d2(SeedingState& s, const double* c) {
  const Distance4 distance4 = distance4_kernel();
  parallel_for_blocks(s.n, parallel_block_rows, s.threads, [&](std::size_t, const RowBlock& b) {
    double sum = 0;
    for (std::size_t i = b.first; i < b.first + b.count; ++i) {
      s.d2[i] = std::min(s.d2[i], distance4(s.x.data() + i * s.d, c, s.d));
      sum += s.d2[i];
    }
    s.block_sum[b.index] = sum;
  });
}

// Centre j = local row `local` of rank `owner`, sent to every rank; then D(x)^2 lowered to it.
void take_centre(SeedingState& s, Collectives& comm, std::size_t j, int owner,
                 std::size_t local) {
  double* c = s.centres.data() + j * s.d;
  if (comm.rank() == owner) {
    std::copy(s.x.data() + local * s.d, s.x.data() + (local + 1) * s.d, c);
    s.chosen[local] = 1;
  }
  comm.broadcast(c, s.d, owner);
  lower_d2(s, c);
}

// The rank holding position `u` of values laid out rank after rank, and `u`'s offset there.
int rank_holding(const std::vector<double>& per, double u, double& before) {
  before = 0;
  int last_positive = -1;
  for (std::size_t q = 0; q < per.size(); ++q)
    if (per[q] > 0) last_positive = int(q);
  for (std::size_t q = 0; q < per.size(); ++q) {
    if (!(per[q] > 0)) continue;
    // the last rank with rows takes a draw that rounding left just beyond the sum
    if (before + per[q] <= u && int(q) != last_positive) {
      before += per[q];
      continue;
    }
    return int(q);
  }
  return last_positive;
}

// On the rank that holds draw r (`cumulative` = the ranks' D^2 before it): the first row whose
// cumulative D(x)^2 exceeds r, walking the blocks' sums, then the rows of one block.
std::size_t row_of_d2_draw(const SeedingState& s, double r, double cumulative) {
  const std::size_t n = s.n;
  std::size_t next = n, last_positive = n;
  for (std::size_t b = 0; b < s.blocks && next == n; ++b) {
    if (s.block_sum[b] <= 0) continue;
    if (cumulative + s.block_sum[b] <= r && b + 1 < s.blocks) {
      cumulative += s.block_sum[b];
      continue;
    }
    const std::size_t begin = b * parallel_block_rows;
    const std::size_t end = std::min(n, begin + parallel_block_rows);
    for (std::size_t i = begin; i < end; ++i) {
      if (s.d2[i] <= 0) continue;
      last_positive = i;
      cumulative += s.d2[i];
      if (cumulative > r) {
        next = i;
        break;
      }
    }
  }
  if (next == n) next = last_positive;  // rounding left r just above the final sum
  return next;
}

// Every row coincides with a chosen centre: any unused row is as good as another (the u-th
// unused row in global row order).
void take_unused_row(SeedingState& s, Collectives& comm, std::size_t j, std::mt19937_64& rng) {
  std::vector<std::size_t> unused;
  for (std::size_t i = 0; i < s.n; ++i)
    if (!s.chosen[i]) unused.push_back(i);
  const std::vector<double> per = per_rank(double(unused.size()));
  double total_unused = 0;
  for (double u : per) total_unused += u;
  const auto u =
      std::uniform_int_distribution<std::size_t>(0, std::size_t(total_unused) - 1)(rng);
  double before = 0;
  const int owner = rank_holding(per, double(u), before);
  take_centre(s, comm, j, owner, comm.rank() == owner ? unused[u - std::size_t(before)] : 0);
}

// k-means++ centre j >= 1: a row drawn with probability proportional to D(x)^2, i.e. the first
// row whose cumulative weight exceeds a uniform draw in [0, total); a draw walks the ranks'
// totals, then the blocks of one rank, then the rows of one block.
void seed_next_centre(SeedingState& s, Collectives& comm, std::size_t j, std::mt19937_64& rng) {
  double mine = 0;
  for (double v : s.block_sum) mine += v;
  const std::vector<double> totals = per_rank(mine);
  double total = 0;
  for (double t : totals) total += t;
  if (!(total > 0)) {
    take_unused_row(s, comm, j, rng);
    return;
  }
  const double r = std::uniform_real_distribution<double>(0.0, total)(rng);
  double cumulative = 0;
  const int owner = rank_holding(totals, r, cumulative);
  const std::size_t next = comm.rank() == owner ? row_of_d2_draw(s, r, cumulative) : s.n;
  take_centre(s, comm, j, owner, next);
}

}  // namespace

Matrix kmeans_initial_centres(const Matrix& x, std::size_t count, const std::string& init,
                              std::mt19937_64& rng, int threads) {
  // Rows are chosen by global row index with draws every rank makes alike, and the owner of a
  // chosen row sends it: the centres are those of one process on all rows, for any rank count.
  const ShardLayout layout = shard_layout(x.dimension() == 2 ? x.shape(0) : 0);
  check_data(x, layout.total, count, "k-means initialisation");
  Collectives& comm = collectives();

  if (init == "random") return random_distinct_rows(x, layout, count, rng);
  if (init != "kmeans++") {
    throw InputError("k-means initialisation: unknown init '" + init +
                     "'; use \"kmeans++\" or \"random\"");
  }

  // Many rows: D^2 sampling on a seeded row sample (kmeans_seeding_rows). Each draw is a pass
  // over the rows, bound by memory bandwidth once they outgrow the cache (SUSY-like rows,
  // 320,000 x 18 with 10,000 centres: 40 s of seeding); Lloyd on all the rows then refines the
  // centres. scikit-learn's MiniBatchKMeans seeds on 3 x count rows the same way.
  const std::size_t seeding_target = std::max(kmeans_seeding_per_centre * count,
                                              kmeans_seeding_floor);
  if (layout.total > 2 * seeding_target) {
    const std::uint64_t seed = rng();
    const std::vector<std::size_t> kept =
        sample_rows(x.shape(0), layout.first, layout.total, seeding_target, seed);
    Matrix sample = Matrix::from_shape({kept.size(), x.shape(1)});
    for (std::size_t r = 0; r < kept.size(); ++r)
      std::copy_n(&x(kept[r], 0), x.shape(1), &sample(r, 0));
    if (count_over_ranks(kept.size()) >= count)
      return kmeans_initial_centres(sample, count, init, rng, threads);
  }

  // D^2 sampling over fixed row blocks (SeedingState): the first centre a uniform row, each
  // next one drawn by D(x)^2 (seed_next_centre); the draws do not depend on the thread count
  // and each rank makes them alike.
  SeedingState s(x, count, threads);
  {
    const std::size_t first = std::uniform_int_distribution<std::size_t>(0, layout.total - 1)(rng);
    std::size_t local = 0;
    const int owner = layout.owner(first, &local);
    take_centre(s, comm, 0, owner, local);
  }
  for (std::size_t j = 1; j < count; ++j) seed_next_centre(s, comm, j, rng);
  return std::move(s.centres);
}

namespace {

// Partition optimisation: each x_n to its closest centre. The first pass (no previous centres)
// meets every centre; later passes only the rows Hamerly's bounds cannot settle.
void assign_rows(BoundedAssignment& assignment, const Matrix& centres, const Matrix* previous,
                 double rel, CentreGeometry& geometry) {
  measure_centres(centres, previous, rel, geometry);
  if (!previous)
    assignment.assign_all(centres, geometry);
  else
    assignment.assign_bounded(centres, geometry);
}

// Prototype optimisation, first half: the sum and count of each cluster's members. Sums per row
// block, added in block order, then over the ranks, so they depend on neither the thread count
// nor the rank count.
void sum_members(const Matrix& x, const BoundedAssignment& assignment, int threads, Matrix& sums,
                 std::vector<double>& counts) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = counts.size();
  struct Partial {
    Matrix sums;
    std::vector<double> counts;
  };
  std::fill(sums.begin(), sums.end(), 0.0);
  std::fill(counts.begin(), counts.end(), 0.0);
  ordered_reduce<Partial>(
      n, parallel_block_rows, threads,
      [&] { return Partial{xt::zeros<double>({m, d}), std::vector<double>(m, 0.0)}; },
      [&](const RowBlock& b, Partial& p) {
        std::fill(p.sums.begin(), p.sums.end(), 0.0);
        std::fill(p.counts.begin(), p.counts.end(), 0.0);
        for (std::size_t i = b.first; i < b.first + b.count; ++i) {
          const std::size_t j = assignment.label(i);
          const double* row = x.data() + i * d;
          double* s = p.sums.data() + j * d;
          for (std::size_t k = 0; k < d; ++k) s[k] += row[k];
          p.counts[j] += 1;
        }
      },
      [&](const RowBlock&, Partial& p) {
        for (std::size_t i = 0; i < m * d; ++i) sums.data()[i] += p.sums.data()[i];
        for (std::size_t j = 0; j < m; ++j) counts[j] += p.counts[j];
      });
  if (collectives().size() > 1) {
    std::vector<double> packed(sums.begin(), sums.end());
    packed.insert(packed.end(), counts.begin(), counts.end());
    sum_over_ranks(packed);
    std::copy(packed.begin(), packed.begin() + std::ptrdiff_t(m * d), sums.begin());
    std::copy(packed.begin() + std::ptrdiff_t(m * d), packed.end(), counts.begin());
  }
}

// Empty-cluster policy (farthest point): re-seed each empty cluster at the row that contributes
// most to the error, taken from a cluster that keeps at least one member: the farthest such row
// over all ranks (ties: the lowest global row), sent by its owner. Moves the row between the
// sums and counts; returns the number of repairs.
std::size_t repair_empty_clusters(const Matrix& x, const Matrix& centres, const ShardLayout& layout,
                                  BoundedAssignment& assignment, Matrix& sums,
                                  std::vector<double>& counts) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = counts.size();
  std::vector<double> dist2(n);
  for (std::size_t i = 0; i < n; ++i)
    dist2[i] = squared_distance(x.data() + i * d, centres.data() + assignment.label(i) * d, d);
  std::vector<std::size_t> by_distance(n);
  std::iota(by_distance.begin(), by_distance.end(), std::size_t(0));
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [&](std::size_t a, std::size_t b) { return dist2[a] > dist2[b]; });
  // A row whose cluster has fewer than 2 members never becomes eligible again (clusters only
  // lose members here), so each rank walks its order once.
  std::size_t next = 0, repairs = 0;
  for (std::size_t j = 0; j < m; ++j) {
    if (counts[j] != 0) continue;
    while (next < n && counts[assignment.label(by_distance[next])] < 2) ++next;
    RowCandidate mine;
    if (next < n) {
      const std::size_t i = by_distance[next];
      mine.has = true;
      mine.key = dist2[i];
      mine.row = layout.first + i;
      mine.tag = assignment.label(i);
      mine.values.assign(x.data() + i * d, x.data() + (i + 1) * d);
    }
    const RowCandidate far = best_candidate(mine, /*largest=*/true);
    if (!far.has) throw Error("k-means: no row left to re-seed an empty cluster");  // n >= m
    const auto donor = std::size_t(far.tag);
    for (std::size_t k = 0; k < d; ++k) {
      sums(donor, k) -= far.values[k];
      sums(j, k) = far.values[k];
    }
    counts[donor] -= 1;
    counts[j] = 1;
    if (mine.has && far.row == mine.row) {
      assignment.reassign(by_distance[next], std::uint32_t(j));
      ++next;
    }
    ++repairs;
  }
  return repairs;
}

// Prototype optimisation, second half: each centre the mean of its members. Returns the largest
// squared move of a centre, which the convergence test reads.
double move_to_means(const Matrix& sums, const std::vector<double>& counts, Matrix& centres) {
  const std::size_t m = centres.shape(0), d = centres.shape(1);
  double max_shift2 = 0;
  for (std::size_t j = 0; j < m; ++j) {
    const double inv = 1.0 / counts[j];
    double shift2 = 0;
    for (std::size_t k = 0; k < d; ++k) {
      const double updated = sums(j, k) * inv;
      const double delta = updated - centres(j, k);
      shift2 += delta * delta;
      centres(j, k) = updated;
    }
    max_shift2 = std::max(max_shift2, shift2);
  }
  return max_shift2;
}

// The partition's labels, sizes, spreads and error (inertia), by direct differences (the GEMM
// identity loses digits to cancellation), summed over the ranks.
void summarise_partition(const Matrix& x, const Matrix& centres,
                         const BoundedAssignment& assignment, KMeansResult& result) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = centres.shape(0);
  result.cluster_sizes = xt::zeros<double>({m});
  result.cluster_spread = xt::zeros<double>({m});
  result.assignment = Labels::from_shape({n});
  result.inertia = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = assignment.label(i);
    const double e = squared_distance(x.data() + i * d, centres.data() + j * d, d);
    result.assignment(i) = std::int64_t(j);
    result.inertia += e;
    result.cluster_spread(j) += e;
    result.cluster_sizes(j) += 1;
  }
  if (collectives().size() > 1) {
    std::vector<double> packed(result.cluster_spread.begin(), result.cluster_spread.end());
    packed.insert(packed.end(), result.cluster_sizes.begin(), result.cluster_sizes.end());
    packed.push_back(result.inertia);
    sum_over_ranks(packed);
    std::copy(packed.begin(), packed.begin() + std::ptrdiff_t(m), result.cluster_spread.begin());
    std::copy(packed.begin() + std::ptrdiff_t(m), packed.begin() + std::ptrdiff_t(2 * m),
              result.cluster_sizes.begin());
    result.inertia = packed.back();
  }
  for (std::size_t j = 0; j < m; ++j)
    if (result.cluster_sizes(j) > 0) result.cluster_spread(j) /= result.cluster_sizes(j);
}

}  // namespace

KMeansResult kmeans_lloyd(const Matrix& x, Matrix centres, const KMeansOptions& options) {
  // Every pass sums its per-block partials locally, then over the ranks of collectives(): the
  // same centres, partition and decisions on every rank, as one process on all rows.
  const ShardLayout layout = shard_layout(x.dimension() == 2 ? x.shape(0) : 0);
  const std::size_t d = x.shape(1), m = centres.shape(0);
  check_data(x, layout.total, m, "k-means");
  if (centres.shape(1) != d) {
    std::ostringstream msg;
    msg << "k-means: initial centres have " << centres.shape(1) << " columns but the data have "
        << d << " features";
    throw ShapeError(msg.str());
  }

  const SingleThreadedBlasScope blas;
  const double rel = 4.0 * double(d + 4) * std::numeric_limits<double>::epsilon();
  BoundedAssignment assignment(x, options.threads);
  CentreGeometry geometry;
  const double threshold =
      options.tolerance > 0 ? options.tolerance * data_scale(x, layout.total) : 0.0;
  Matrix sums = xt::empty<double>({m, d});
  std::vector<double> counts(m);
  Matrix previous;

  KMeansResult result;
  result.converged = false;
  for (std::size_t it = 0; it < options.iterations; ++it) {
    assign_rows(assignment, centres, it == 0 ? nullptr : &previous, rel, geometry);
    sum_members(x, assignment, options.threads, sums, counts);
    if (std::find(counts.begin(), counts.end(), 0.0) != counts.end())
      result.empty_cluster_repairs +=
          repair_empty_clusters(x, centres, layout, assignment, sums, counts);
    previous = centres;
    const double max_shift2 = move_to_means(sums, counts, centres);
    result.iterations = it + 1;
    // Converged: no centre moved more than tolerance * data scale. With tolerance 0 the loop
    // never stops early, and converged says whether the last iteration was a fixed point.
    result.converged = std::sqrt(max_shift2) <= threshold;
    if (options.tolerance > 0 && result.converged) break;
  }

  // Final partition for the final centres.
  assign_rows(assignment, centres, result.iterations == 0 ? nullptr : &previous, rel, geometry);
  assignment.release_bounds();
  summarise_partition(x, centres, assignment, result);
  result.centres = std::move(centres);
  return result;
}

KMeansResult kmeans(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng) {
  return kmeans_lloyd(x, kmeans_initial_centres(x, options.count, options.init, rng, options.threads),
                      options);
}

}  // namespace radial
