#pragma once
// The pieces of k-means that its seeding (kmeans_seeding.cpp), its assignment step
// (kmeans_assignment.cpp) and Lloyd's iterations (kmeans.cpp) share: the distance kernels, the
// assignment with Hamerly's bounds, and the check of the data (internal to the framework).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "radial/exec/parallel.hpp"
#include "radial/core/types.hpp"
#include "kmeans_screen.hpp"

namespace radial::kmeans_detail {

// Rows per GEMM call of the assignment: 256 rows x 256 centres of distances (512 KB) stay in L2
// while the arg min reads them.
inline constexpr std::size_t kGemmRows = 256;

// The squared Euclidean distance of two points of d coordinates, summed in coordinate order.
inline double squared_distance(const double* a, const double* b, std::size_t d) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) {
    const double t = a[i] - b[i];
    s += t * t;
  }
  return s;
}

inline double norm2(const double* a, std::size_t d) {
  double s = 0;
  for (std::size_t k = 0; k < d; ++k) s += a[k] * a[k];
  return s;
}

// d2[i] = min(d2[i], ||x_i - c||^2) for the rows [first, first + count) of x (row-major, d
// columns), and the sum of those d2 in row order; the squared distance with four partial sums
// (independent add chains, about four times the throughput), the same bits on this CPU's
// kernel (use_avx2_kernels: not under RADIAL_PORTABLE_KERNELS) and the portable one.
using LowerRows = double (*)(const double* x, std::size_t d, const double* c, std::size_t first,
                             std::size_t count, double* d2);
LowerRows lower_rows_kernel();

// The same for rows also held four by four by coordinate (`quads`, to_quads): four rows' sums in
// one vector, no sum across it, the same bits as lower_rows_kernel's. `first` is a multiple of
// 4; rows past the last whole quad are read from x. Null where only the portable kernel runs.
using LowerQuads = double (*)(const double* quads, const double* x, std::size_t d,
                              const double* c, std::size_t first, std::size_t count, double* d2);
LowerQuads lower_quads_kernel();
// Rows 4q .. 4q + 3 of x as d groups of 4 values (coordinate by coordinate), for q < n / 4.
std::vector<double> to_quads(const Matrix& x);

// `rows`: the rows over every rank (the data's shard on this rank is x). InputError naming
// `where` when there are no centres, no feature columns or fewer rows than centres.
void check_data(const Matrix& x, std::size_t rows, std::size_t count, const char* where);

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
  BoundedAssignment(const Matrix& x, int threads);

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
  void reassign(std::size_t i, std::uint32_t j);

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

  void pass(const Matrix& centres, const CentreGeometry& g, bool bounded);

  // The bound tests of one block (detail::move_bounds); rows they cannot settle go to `rows`.
  void screen(const RowBlock& b, const Matrix& centres, const CentreGeometry& g, Scratch& s);

  // Nearest and second-nearest centre by the GEMM identity in single precision (the fused
  // kernel of kmeans_screen.cpp on AVX-512 or AVX2, else sgemm + a vectorised scan). A row is
  // settled when its two smallest values differ by more than twice the single-precision error
  // bound: then the order of the true distances is the same, and the bounds carry that error.
  // Rows closer than that go to `close` for the double-precision pass, so ties are broken
  // exactly as there.
  void screen_single(const std::size_t* rows, std::size_t count, std::size_t m,
                     const CentreGeometry& g, Scratch& s);

  // Nearest and second-nearest centre of `count` rows by one GEMM, lowest index on ties.
  void nearest_two(const std::size_t* rows, std::size_t count, const Matrix& centres,
                   const CentreGeometry& g, Scratch& s);

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
void measure_centres(const Matrix& centres, const Matrix* previous, double rel, int threads,
                     CentreGeometry& g);

}  // namespace radial::kmeans_detail
