#pragma once
// The sums of a normalised RBF network (Specht 1991, "A general regression neural network",
// IEEE Trans. Neural Networks 2(6), eqs 5-6, its clustered form):
//
//   y(x) = sum_j A_j phi_j(x) / sum_j B_j phi_j(x)
//
// with each training row assigned to its nearest centre (Euclidean distance between the means,
// ties to the lower index), A_j the sum of the targets of centre j's rows and B_j their count.
// With one centre per training row (centres subset, all = true) A_j is that row's target and
// B_j = 1: eq 3's Nadaraya-Watson estimate. Used by the grnn and pnn output layers, read by
// the `normalised` and `normalised-posterior` prediction rules (radial/network/prediction_rule.hpp).

#include "radial/core/types.hpp"

namespace radial {

// inputs N x d, targets N x K, means M x d -> W = [A, B], (M + 1) x (K + 1), bias row 0.
// Sharded (radial/distributed/collectives.hpp): A and B are summed over the ranks' rows.
Matrix normalised_sums(const Matrix& inputs, const Matrix& targets, const Matrix& means,
                       int threads = 1);

}  // namespace radial
