// Registration of the `least-squares` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "least_squares_output.hpp"

namespace radial::plugins {

static auto least_squares_table() {
  OptionTable<LeastSquaresOptions> t;
  t.choice("solver", &LeastSquaresOptions::solver,
           {{"auto", LeastSquaresSolver::Auto},
            {"svd", LeastSquaresSolver::Svd},
            {"normal-equations", LeastSquaresSolver::NormalEquations},
            {"refined-normal-equations", LeastSquaresSolver::RefinedNormalEquations},
            {"cg", LeastSquaresSolver::Cg}},
           "svd: LAPACK dgelsd on the design matrix; normal-equations: Phi^T Phi accumulated in "
           "row blocks, solved by eigendecomposition; refined-normal-equations: the same, solved by "
           "Cholesky, then refined with residuals from Phi to the SVD's accuracy (Bjorck 1987), or svd "
           "(normal-equations when it does not fit in memory) when the penalised system's "
           "condition exceeds 1e15; cg: preconditioned "
           "conjugate gradient on the normal equations, never formed (one pass over the design "
           "per iteration; for thousands of centres); auto: cg under a penalty when its "
           "estimated cost is below the direct solve's, else refined-normal-equations under a "
           "penalty, else svd when N (M+1) <= 4194304");
  t.bind("rcond", &LeastSquaresOptions::rcond,
         "relative cut-off below which singular values (svd) or eigenvalues (normal-equations) "
         "count as 0; < 0: machine epsilon x max(N, M+1), or epsilon x (M+1) for eigenvalues; "
         "below 1, since rcond >= 1 would count every value as 0")
      .below(1.0);
  t.bind("tolerance", &LeastSquaresOptions::tolerance,
         "cg: stop when every output's normal-equations residual is at most this fraction of "
         "its right-hand side's norm")
      .above(0.0)
      .below(1.0);
  t.bind("max_iterations", &LeastSquaresOptions::max_iterations,
         "cg: the most iterations (passes over the design); reaching it is reported as not "
         "converged")
      .at_least(1);
  t.choice("precision", &LeastSquaresOptions::precision,
           {{"auto", DesignPrecision::Auto},
            {"double", DesignPrecision::Double},
            {"single", DesignPrecision::Single}},
           "cg: the precision a Gaussian basis's activations are made and kept in (single: "
           "made about twice as fast, within ~1e-6 relative, and kept in floats, half the "
           "memory and the bytes each iteration reads, far below the tolerance's effect; the "
           "weights and predictions stay double); auto: made in single precision when Phi "
           "(N x (M+1) doubles) exceeds 2 GiB, so that every pass makes it again, kept in "
           "floats (and made in single precision) from 64 MiB with at most 8 outputs, double "
           "otherwise");
  return t;
}

RADIAL_PLUGIN_COMPONENT(
    "least-squares", "1.0.0", LeastSquaresOutput,
    "linear outputs by the pseudo-inverse of the design matrix (SVD), ridge with a "
    "weight penalty",
    "NETLAB rbftrain (pinv), Nabney (papers 000/003); lecture notes (paper 001): "
    "'Interpolation' beta = (Z^T Z)^{-1} Z^T y and 'Regularization' "
    "beta = (Z^T Z + lambda I)^{-1} Z^T y",
    least_squares_table(),
    [](const Params&) {
      Capabilities c;
      c.least_squares = true;    // the closed-form leave-one-out is its own error
      c.side_conditions = true;  // P_c^T w = 0 of a basis's polynomial term
      return c;
    })

}  // namespace radial::plugins
