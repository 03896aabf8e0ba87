// Registration of the `least-squares` output layer: its parameter table and factory.
#include <radial/sdk/plugin.hpp>

#include "least_squares_output.hpp"

namespace radial::plugins {

LeastSquaresOptions least_squares_options(const Params& params) {
  LeastSquaresOptions options;
  const std::string& solver = params.string("solver");  // one of the table's choices
  options.solver = solver == "svd"                ? LeastSquaresSolver::Svd
                   : solver == "normal-equations" ? LeastSquaresSolver::NormalEquations
                                                  : LeastSquaresSolver::Auto;
  options.rcond = params.real("rcond");
  return options;
}

namespace {

void register_least_squares(Registrar& registrar) {
  registrar.add_output_layer(
      sdk::describe(
          "linear outputs by the pseudo-inverse of the design matrix (SVD), ridge with a "
          "weight penalty",
          "NETLAB rbftrain (pinv), Nabney (papers 000/003); lecture notes (paper 001): "
          "'Interpolation' beta = (Z^T Z)^{-1} Z^T y and 'Regularization' "
          "beta = (Z^T Z + lambda I)^{-1} Z^T y",
          {
              ParamSpec::choice(
                  "solver", "auto", {"auto", "svd", "normal-equations"},
                  "svd: LAPACK dgelsd on the design matrix; normal-equations: Phi^T Phi "
                  "accumulated in "
                  "row blocks, solved by eigendecomposition; auto: svd when N (M+1) <= 4194304"),
              ParamSpec::real("rcond", -1.0,
                              "relative cut-off below which singular values (svd) or "
                              "eigenvalues (normal-equations) count as 0; < 0: machine "
                              "epsilon x max(N, M+1), or epsilon x (M+1) for eigenvalues; "
                              "below 1, since rcond >= 1 would count every value as 0")
                  .below(1.0),
          }),
      sdk::from_options<LeastSquaresOutput>(least_squares_options));
}

}  // namespace
}  // namespace radial::plugins

RADIAL_PLUGIN("least-squares", "1.0.0", radial::plugins::register_least_squares)
