// Lloyd's k-means (lecture notes, paper 001, "k-Means Algorithm": partition optimisation, then
// prototype optimisation = mean of each S_m, alternated) with k-means++ seeding (Arthur &
// Vassilvitskii 2007: each new centre drawn with probability proportional to D(x)^2).
//
// The assignment step is the hot loop: nearest centres by the GEMM identity
// ||x - c||^2 = ||x||^2 + ||c||^2 - 2 x.c, one dgemm per row block straight from the rows of x,
// fused with the arg min so that no N x M distance matrix is ever stored.
#include "radial/numerics/kmeans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <thread>
#include <vector>

#include <xtensor-blas/xblas.hpp>

#include "radial/errors.hpp"
#include "radial/numerics/blas_threads.hpp"

namespace radial {
namespace {

constexpr std::size_t kBlockRows = 1024;

// Lloyd parallelises over row blocks itself, so BLAS stays single-threaded inside (DESIGN.md).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() : saved_(blas_threads()) { set_blas_threads(1); }
  ~SingleThreadedBlas() { set_blas_threads(saved_); }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_;
};

double squared_distance(const double* a, const double* b, std::size_t d) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) {
    const double t = a[i] - b[i];
    s += t * t;
  }
  return s;
}

Vector row_norms2(const Matrix& a) {
  const std::size_t n = a.shape(0), d = a.shape(1);
  Vector out = xt::zeros<double>({n});
  for (std::size_t i = 0; i < n; ++i) {
    const double* r = a.data() + i * d;
    double s = 0;
    for (std::size_t k = 0; k < d; ++k) s += r[k] * r[k];
    out(i) = s;
  }
  return out;
}

// Nearest centre (lowest index on ties) and its GEMM-identity squared distance for every row.
class NearestCentres {
 public:
  NearestCentres(const Matrix& x, int threads)
      : x_(x), x_norm2_(row_norms2(x)), threads_(std::max(1, threads)) {}

  void assign(const Matrix& centres, Labels& labels, Vector& dist2) const {
    const std::size_t n = x_.shape(0);
    const Vector c_norm2 = row_norms2(centres);
    const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
    // Fixed blocks, each row computed the same way whatever the thread count.
    auto work = [&](std::size_t first_block, std::size_t stride) {
      Matrix cross = xt::empty<double>({kBlockRows, centres.shape(0)});
      for (std::size_t b = first_block; b < blocks; b += stride) {
        const std::size_t first = b * kBlockRows;
        const std::size_t count = std::min(kBlockRows, n - first);
        block(first, count, centres, c_norm2, cross, labels, dist2);
      }
    };
    const std::size_t workers = std::min<std::size_t>(std::size_t(threads_), blocks);
    if (workers <= 1) {
      work(0, 1);
      return;
    }
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < workers; ++t) pool.emplace_back(work, t, workers);
    work(0, workers);
    for (auto& th : pool) th.join();
  }

 private:
  void block(std::size_t first, std::size_t count, const Matrix& centres, const Vector& c_norm2,
             Matrix& cross, Labels& labels, Vector& dist2) const {
    const std::size_t d = x_.shape(1), m = centres.shape(0);
    // cross(i, j) = -2 x_{first+i} . c_j (scaling by -2 is exact, so each value equals
    // c_norm2 - 2 x.c computed the long way)
    cxxblas::gemm<xt::blas_index_t>(
        cxxblas::RowMajor, cxxblas::NoTrans, cxxblas::Trans, xt::blas_index_t(count),
        xt::blas_index_t(m), xt::blas_index_t(d), -2.0, x_.data() + first * d,
        xt::blas_index_t(d), centres.data(), xt::blas_index_t(d), 0.0, cross.data(),
        xt::blas_index_t(m));
    const double* cn = c_norm2.data();
    for (std::size_t i = 0; i < count; ++i) {
      const double* row = cross.data() + i * m;
      // Arg min in four interleaved lanes (independent compare chains instead of one serial
      // chain); each lane keeps its first minimum, and the lanes are merged preferring the
      // lower index on ties, so the result is the lowest index of the minimum, as a plain scan.
      double lane_value[4] = {0, 0, 0, 0};
      std::size_t lane_index[4] = {0, 0, 0, 0};
      const std::size_t lanes = std::min<std::size_t>(4, m);
      for (std::size_t l = 0; l < lanes; ++l) {
        lane_value[l] = cn[l] + row[l];
        lane_index[l] = l;
      }
      std::size_t j = lanes;
      for (; j + 4 <= m; j += 4)
        for (std::size_t l = 0; l < 4; ++l) {
          const double v = cn[j + l] + row[j + l];
          if (v < lane_value[l]) {
            lane_value[l] = v;
            lane_index[l] = j + l;
          }
        }
      for (; j < m; ++j) {
        const std::size_t l = j % 4;
        const double v = cn[j] + row[j];
        if (v < lane_value[l]) {
          lane_value[l] = v;
          lane_index[l] = j;
        }
      }
      std::size_t best = lane_index[0];
      double best_value = lane_value[0];
      for (std::size_t l = 1; l < lanes; ++l)
        if (lane_value[l] < best_value ||
            (lane_value[l] == best_value && lane_index[l] < best)) {
          best_value = lane_value[l];
          best = lane_index[l];
        }
      labels(first + i) = std::int64_t(best);
      dist2(first + i) = std::max(0.0, x_norm2_(first + i) + best_value);
    }
  }

  const Matrix& x_;
  Vector x_norm2_;
  int threads_;
};

void check_data(const Matrix& x, std::size_t count, const char* where) {
  if (count == 0) {
    throw InputError(std::string(where) + ": the number of centres is 0; set count >= 1");
  }
  if (x.shape(1) == 0) {
    throw InputError(std::string(where) + ": the data have no feature columns");
  }
  if (count > x.shape(0)) {
    std::ostringstream msg;
    msg << where << ": " << count << " centres requested but the data have only " << x.shape(0)
        << " rows; set count <= " << x.shape(0);
    throw InputError(msg.str());
  }
}

// Root mean feature variance: the data scale the tolerance is relative to.
double data_scale(const Matrix& x) {
  const std::size_t n = x.shape(0), d = x.shape(1);
  double total = 0;
  for (std::size_t k = 0; k < d; ++k) {
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += x(i, k);
    mean /= double(n);
    double var = 0;
    for (std::size_t i = 0; i < n; ++i) var += (x(i, k) - mean) * (x(i, k) - mean);
    total += var / double(n);
  }
  return std::sqrt(total / double(d));
}

}  // namespace

Matrix kmeans_initial_centres(const Matrix& x, std::size_t count, const std::string& init,
                              std::mt19937_64& rng) {
  check_data(x, count, "k-means initialisation");
  const std::size_t n = x.shape(0), d = x.shape(1);
  Matrix centres = xt::empty<double>({count, d});
  auto copy_row = [&](std::size_t j, std::size_t row) {
    std::copy(x.data() + row * d, x.data() + (row + 1) * d, centres.data() + j * d);
  };

  if (init == "random") {
    // Distinct rows: a partial Fisher-Yates shuffle of the row indices.
    std::vector<std::size_t> index(n);
    std::iota(index.begin(), index.end(), std::size_t(0));
    for (std::size_t j = 0; j < count; ++j) {
      std::uniform_int_distribution<std::size_t> pick(j, n - 1);
      std::swap(index[j], index[pick(rng)]);
      copy_row(j, index[j]);
    }
    return centres;
  }
  if (init != "kmeans++") {
    throw InputError("k-means initialisation: unknown init '" + init +
                     "'; use \"kmeans++\" or \"random\"");
  }

  std::vector<char> chosen(n, 0);
  std::size_t first = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  copy_row(0, first);
  chosen[first] = 1;
  std::vector<double> d2(n);
  for (std::size_t i = 0; i < n; ++i) d2[i] = squared_distance(x.data() + i * d, x.data() + first * d, d);

  for (std::size_t j = 1; j < count; ++j) {
    double total = 0;
    for (double v : d2) total += v;
    std::size_t next = n;
    if (total > 0) {
      // D^2 sampling: the first row whose cumulative weight exceeds a uniform draw in [0, total).
      const double r = std::uniform_real_distribution<double>(0.0, total)(rng);
      double cumulative = 0;
      std::size_t last_positive = n;
      for (std::size_t i = 0; i < n; ++i) {
        if (d2[i] <= 0) continue;
        last_positive = i;
        cumulative += d2[i];
        if (cumulative > r) {
          next = i;
          break;
        }
      }
      if (next == n) next = last_positive;  // rounding left r just above the final sum
    } else {
      // Every row coincides with a chosen centre: any unused row is as good as another.
      std::vector<std::size_t> unused;
      for (std::size_t i = 0; i < n; ++i)
        if (!chosen[i]) unused.push_back(i);
      next = unused[std::uniform_int_distribution<std::size_t>(0, unused.size() - 1)(rng)];
    }
    copy_row(j, next);
    chosen[next] = 1;
    for (std::size_t i = 0; i < n; ++i)
      d2[i] = std::min(d2[i], squared_distance(x.data() + i * d, x.data() + next * d, d));
  }
  return centres;
}

KMeansResult kmeans_lloyd(const Matrix& x, Matrix centres, const KMeansOptions& options) {
  const std::size_t n = x.shape(0), d = x.shape(1), m = centres.shape(0);
  check_data(x, m, "k-means");
  if (centres.shape(1) != d) {
    std::ostringstream msg;
    msg << "k-means: initial centres have " << centres.shape(1) << " columns but the data have "
        << d << " features";
    throw ShapeError(msg.str());
  }

  const SingleThreadedBlas blas;
  const NearestCentres nearest(x, options.threads);
  const double threshold = options.tolerance * data_scale(x);
  Labels labels = xt::zeros<std::int64_t>({n});
  Vector dist2 = xt::zeros<double>({n});
  Matrix sums = xt::empty<double>({m, d});
  std::vector<std::size_t> counts(m);

  KMeansResult result;
  result.converged = false;
  std::vector<std::size_t> by_distance;
  for (std::size_t it = 0; it < options.iterations; ++it) {
    // Partition optimisation: each x_n to its closest centre.
    nearest.assign(centres, labels, dist2);

    // Prototype optimisation: each centre the mean of its members (sums in row order, so the
    // result does not depend on the thread count).
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(counts.begin(), counts.end(), std::size_t(0));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = std::size_t(labels(i));
      const double* row = x.data() + i * d;
      double* s = sums.data() + j * d;
      for (std::size_t k = 0; k < d; ++k) s[k] += row[k];
      ++counts[j];
    }

    // Empty-cluster policy (farthest point): re-seed each empty cluster at the row that
    // contributes most to the error, taken from a cluster that keeps at least one member.
    if (std::find(counts.begin(), counts.end(), std::size_t(0)) != counts.end()) {
      by_distance.resize(n);
      std::iota(by_distance.begin(), by_distance.end(), std::size_t(0));
      std::stable_sort(by_distance.begin(), by_distance.end(),
                       [&](std::size_t a, std::size_t b) { return dist2(a) > dist2(b); });
      std::size_t next = 0;
      for (std::size_t j = 0; j < m; ++j) {
        if (counts[j] != 0) continue;
        while (counts[std::size_t(labels(by_distance[next]))] < 2) ++next;  // n >= m: exists
        const std::size_t row_index = by_distance[next++];
        const std::size_t donor = std::size_t(labels(row_index));
        const double* row = x.data() + row_index * d;
        for (std::size_t k = 0; k < d; ++k) {
          sums(donor, k) -= row[k];
          sums(j, k) = row[k];
        }
        --counts[donor];
        counts[j] = 1;
        labels(row_index) = std::int64_t(j);
        ++result.empty_cluster_repairs;
      }
    }

    double max_shift2 = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const double inv = 1.0 / double(counts[j]);
      double shift2 = 0;
      for (std::size_t k = 0; k < d; ++k) {
        const double updated = sums(j, k) * inv;
        const double delta = updated - centres(j, k);
        shift2 += delta * delta;
        centres(j, k) = updated;
      }
      max_shift2 = std::max(max_shift2, shift2);
    }
    result.iterations = it + 1;
    // Converged: no centre moved more than tolerance * data scale. With tolerance 0 the loop
    // never stops early, and converged says whether the last iteration was a fixed point.
    result.converged = std::sqrt(max_shift2) <= threshold;
    if (options.tolerance > 0 && result.converged) break;
  }

  // Final partition for the final centres; the error and spreads by direct differences (the
  // GEMM identity loses digits to cancellation).
  nearest.assign(centres, labels, dist2);
  result.cluster_sizes = xt::zeros<double>({m});
  result.cluster_spread = xt::zeros<double>({m});
  result.inertia = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = std::size_t(labels(i));
    const double e = squared_distance(x.data() + i * d, centres.data() + j * d, d);
    result.inertia += e;
    result.cluster_spread(j) += e;
    result.cluster_sizes(j) += 1;
  }
  for (std::size_t j = 0; j < m; ++j)
    if (result.cluster_sizes(j) > 0) result.cluster_spread(j) /= result.cluster_sizes(j);
  result.centres = std::move(centres);
  result.assignment = std::move(labels);
  return result;
}

KMeansResult kmeans(const Matrix& x, const KMeansOptions& options, std::mt19937_64& rng) {
  return kmeans_lloyd(x, kmeans_initial_centres(x, options.count, options.init, rng), options);
}

}  // namespace radial
