#pragma once
// Linear output weights by least squares: the pseudo-inverse solution W = Phi^+ T of NETLAB's
// rbftrain (Nabney, papers 000/003) and of the lecture notes (paper 001, "Interpolation":
// beta = (Z^T Z)^{-1} Z^T y), with Phi the design matrix including its bias column.
//
// With a weight penalty the ridge solution of paper 001 ("Regularization"):
//   (Phi^T Phi + H) W = Phi^T T - G,
// H and G the penalty's Hessian and gradient at W = 0 for one output column (weight decay:
// H = alpha I on the non-bias rows, G = 0). This is exact for any quadratic penalty that treats
// output columns alike; the reported error uses the penalty itself.
//
// Two solvers, the same minimiser:
//  - svd: LAPACK dgelsd on the materialised N x (M+1) design matrix (stacked with L^T, H = L L^T,
//    under a penalty): accurate to the conditioning of Phi itself;
//  - normal-equations: Phi^T Phi (dsyrk) and Phi^T T (dgemm) accumulated block by block, so the
//    design matrix never has to fit in memory, then the pseudo-inverse by eigendecomposition.
//  - refined-normal-equations: the normal equations by their Cholesky factor, then iterative
//    refinement with residuals taken from Phi (Bjorck's corrected semi-normal equations): the
//    SVD's accuracy when the penalised system's condition (dpocon's 1-norm estimate) is below
//    1e15 (Phi's below about 3e7), at a quarter of its flops and on every thread; otherwise
//    one of the other two takes over.
//  - cg: preconditioned conjugate gradient on the same normal equations, never formed: each
//    iteration one pass over Phi's blocks (radial/network/normal_cg.hpp), the preconditioner
//    the Cholesky factor of (N / (S + M)) (Phi_S^T Phi_S + Phi_C^T Phi_C) + H, Phi_S the design
//    at a sample of S ~ M rows and Phi_C at the centres (FALKON's quadrature, Rudi et al. 2017,
//    when the centres are training rows). Cost per
//    iteration ~ N (M+1) (2d + 4K); the direct solvers' N (M+1)^2 + (M+1)^3 / 3 grows with M^2.
// `auto` takes cg under a penalty from 1,001 columns when its estimated cost (iterative_cost)
// is below the refined normal equations' (direct_cost), and whenever the direct blocks do not
// fit in memory; else refined-normal-equations under a penalty, and where that fails the svd
// whenever it fits in memory (the normal equations would truncate what the selection kept);
// without a penalty svd when N (M+1) <= svd_limit entries and normal-equations otherwise.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "radial/network/output_layer.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

enum class LeastSquaresSolver { Auto, Svd, NormalEquations, RefinedNormalEquations, Cg };
// cg: the precision the design's activations are made in on each pass (DesignMatrix::
// use_single_precision) and kept in (use_single_storage); auto: made in single when Phi
// exceeds cg_cache_bytes, so every pass makes it, kept in floats from single_storage_bytes.
enum class DesignPrecision { Auto, Double, Single };

struct LeastSquaresOptions {
  LeastSquaresSolver solver = LeastSquaresSolver::Auto;
  double rcond = -1.0;  // < 0: LAPACK's default cut-offs (radial/numerics/least_squares.hpp)
  double tolerance = 1e-3;            // cg: relative residual of the normal equations
  std::int64_t max_iterations = 300;  // cg
  DesignPrecision precision = DesignPrecision::Auto;  // cg
};

class LeastSquaresOutput final : public OutputLayer {
 public:
  using Solver = LeastSquaresSolver;

  // Design matrices of at most this many entries (32 MiB of doubles) are solved by SVD under
  // Solver::Auto without a penalty (with one, when the refined solve fails, at any size that
  // fits in memory).
  static constexpr std::size_t svd_limit = std::size_t(1) << 22;

  // The most bytes of Phi the cg path keeps in memory between its passes (also at most a
  // quarter of the memory available); beyond, every pass makes Phi's blocks again.
  static constexpr std::size_t cg_cache_bytes = std::size_t(2) << 30;

  // Under precision auto, the cg path keeps Phi in floats (DesignMatrix::use_single_storage)
  // from this many bytes of doubles: there each iteration reads Phi from memory, and half the
  // bytes make it nearly twice as fast; below, Phi stays double and the solve exact to its
  // tolerance alone.
  static constexpr std::size_t single_storage_bytes = std::size_t(64) << 20;

  explicit LeastSquaresOutput(LeastSquaresOptions options)
      : solver_(options.solver), rcond_(options.rcond), tolerance_(options.tolerance),
        max_iterations_(std::size_t(options.max_iterations)), precision_(options.precision) {}

  // Under `auto` and a penalty, cg only from this many columns: below, the direct solve is
  // exact and costs little (and every set of the accuracy benchmark stays there).
  static constexpr double min_iterative_columns = 1001;

  // Estimated flops of the two paths on n rows, d inputs, p = M + 1 columns, k outputs (the
  // auto rule; the iterative one assumes 15 iterations and an exp worth 30 flops).
  static double direct_cost(double n, double d, double p, double k);
  static double iterative_cost(double n, double d, double p, double k);

  // The direct solvers hold a few (M + 1)^2 blocks (OutputLayer's default); the cg path one
  // (the preconditioner's factor), the targets and Phi when it is cached (cg_memory). Under
  // `auto`, a direct solve that does not fit in the memory available is replaced by cg.
  WorkingMemory working_memory(std::size_t rows, std::size_t centres,
                               std::size_t outputs) const override;
  static WorkingMemory cg_memory(std::size_t rows, std::size_t centres, std::size_t outputs);

  bool least_squares() const override { return true; }
  // A basis's polynomial term is fitted under its side conditions P_c^T w = 0, by SVD on
  // [Phi_rbf Z, P] (radial/numerics/side_conditions.hpp) whatever the solver option says.
  bool side_conditions() const override { return true; }

  // Targets from targets_for(Link::Identity, data): values (regression) or 1-of-K (classes,
  // predicted by arg max). Records rank, solver and final_error = 0.5 SSE + penalty(W) in
  // ctx.report; warns "rank-deficient" when rank < M+1.
  OutputWeights fit(const TrainingProblem& problem, const WeightPenalty* penalty,
                    FitContext& ctx) override;

 private:
  // The cg path of fit(): weights, report and warnings.
  OutputWeights fit_iterative(const TrainingProblem& problem, const Matrix& t,
                              const WeightPenalty* penalty, std::size_t total_rows,
                              std::chrono::steady_clock::time_point start,
                              FitContext& ctx) const;

  Solver solver_;
  double rcond_;
  double tolerance_;
  std::size_t max_iterations_;
  DesignPrecision precision_;
};

}  // namespace radial::plugins
