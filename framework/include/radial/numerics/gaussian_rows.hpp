#pragma once
// phi_nj = exp(-r2_nj / 2), r2_nj = ||x_n - c_j||^2 / sigma_j^2 (Euclidean: sigma_j = 1), made in
// one pass over tiles of rows and centres held in vector registers: the dot products x.c_j, the
// GEMM identity, the clamp at r2 = 0 and the exp, each value written once. It stands in for
// SquaredDistances::compute, Basis::map and the copy into the design matrix (three passes over
// the block and a GEMM whose inner dimension d is too small to pay for its packing), for bases
// with gaussian_activation(): most of a conjugate-gradient pass over Phi at large N and M.
//
// The values agree with that path to rounding: the same identity, summed in another order
// (tests/numerics, "[gaussian-rows]"). Each value depends only on its row and centre, so blocks
// and threads do not change the bits.
//
// Precision::Single computes in single precision (twice the values per instruction and a shorter
// exp) about the centres' mean g, and stores doubles: phi_nj is then within a relative
// ~(d + 8) 6e-8 (1 + (||x_n - g||^2 + ||c_j - g||^2) / sigma_j^2) of its value (activations below
// FLT_MIN are 0). For passes that need no more, such as a conjugate-gradient solve to a relative
// residual of 1e-4; single_precision_suits() says when the centres' terms are small enough.

#include <cstddef>
#include <memory>
#include <vector>

#include "radial/core/centres.hpp"

namespace radial {

class GaussianRows {
 public:
  enum class Precision { Double, Single };
  // Largest ||c_j - g||^2 / sigma_j^2 single precision suits: the rounding of phi then stays
  // below ~1e-5 relative for the rows near the centres, whose activations are not negligible.
  static constexpr double single_precision_max_term = 1e2;
  static bool single_precision_suits(const Centres& centres, Metric metric);

  // The kernel this CPU runs, "avx512" or "avx2" (AVX2 + FMA); nullptr when it has neither or
  // RADIAL_PORTABLE_KERNELS is set: callers then take the SquaredDistances path.
  static const char* kernel();
  // Every kernel this CPU can run (tests compare them).
  static std::vector<const char*> kernels();
  // Distances with no shape (Metric::Euclidean, or centres without one) or spherical shapes.
  static bool supports(const Centres& centres, Metric metric);

  // ShapeError unless supports(); a variance that is not finite and > 0 is refused as
  // SquaredDistances refuses it. `kernel` is one of kernels().
  GaussianRows(const Centres& centres, Metric metric, const char* kernel = GaussianRows::kernel(),
               Precision precision = Precision::Double);
  ~GaussianRows();
  GaussianRows(GaussianRows&&) noexcept;
  GaussianRows& operator=(GaussianRows&&) noexcept;

  // out[n * stride + j] = phi_nj for n < rows, j < M, from `rows` rows of d finite values at x
  // (row-major); other columns of out are left alone. Thread-safe.
  void compute(const double* x, std::size_t rows, double* out, std::size_t stride) const;

  // Single precision on AVX-512: qt (k x (M + 1), row-major) += (Phi_b^T (Phi_b X))^T for the
  // design Phi_b = [phi, 1] of `rows` rows at x and xt = X^T (k x (M + 1)), k <= 4; the
  // activations are kept in float between the product's two sweeps and u = Phi_b X is summed
  // as they are made (no double block: HIGGS-like M = 2 x 10^4 made and read 24 bytes an
  // activation, this 8). Sums in an order fixed by the rows alone. False, with qt untouched,
  // when it cannot (double precision, AVX2, k > 4). Thread-safe.
  bool add_normal_products(const double* x, std::size_t rows, const double* xt, std::size_t k,
                           double* qt) const;

  std::size_t count() const;
  bool single_precision() const;

 private:
  void compute_single(const double* x, std::size_t rows, double* out, std::size_t stride) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace radial
