#pragma once
// Full-memory minimisers for whole-network training, beside L-BFGS (radial/optim/lbfgs.hpp),
// with its options, result and stopping rule:
//
//   minimise_bfgs  quasi-Newton with the dense BFGS inverse Hessian (Nocedal & Wright eq. 6.17,
//                  H0 scaled by eq. 6.20) on the strong Wolfe search; P x P memory, so it refuses
//                  more than max_bfgs_parameters parameters (use L-BFGS)
//   minimise_scg   Moller's scaled conjugate gradients (Neural Networks 6, 1993; NETLAB scg.m):
//                  no line search, a Levenberg-Marquardt scale lambda on the curvature estimated
//                  from one extra gradient; a step is taken only when it lowers the error.
//
// `memory` of LbfgsOptions is unused by both.

#include <cstddef>

#include "radial/optim/lbfgs.hpp"

namespace radial::refine {

// 8192 parameters: a 512 MB inverse Hessian.
inline constexpr std::size_t max_bfgs_parameters = 8192;

MinimiseResult minimise_bfgs(const GradientFunction& f, Vector start, const LbfgsOptions& options);
MinimiseResult minimise_scg(const GradientFunction& f, Vector start, const LbfgsOptions& options);

}  // namespace radial::refine
