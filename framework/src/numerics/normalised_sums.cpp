// Specht's sums A_j, B_j by nearest centre (radial/numerics/normalised_sums.hpp).
#include "radial/numerics/normalised_sums.hpp"

#include <algorithm>
#include <limits>
#include <vector>

#include <xtensor/xview.hpp>

#include "radial/distributed/collectives.hpp"
#include "radial/core/errors.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/exec/parallel.hpp"

namespace radial {

Matrix normalised_sums(const Matrix& inputs, const Matrix& targets, const Matrix& means,
                       int threads) {
  const std::size_t n = inputs.shape(0), m = means.shape(0), k = targets.shape(1);
  if (targets.shape(0) != n || (n > 0 && inputs.shape(1) != means.shape(1)))
    throw ShapeError("normalised_sums: " + std::to_string(n) + " input rows of " +
                     std::to_string(inputs.shape(1)) + " features, " +
                     std::to_string(targets.shape(0)) + " target rows, centres of " +
                     std::to_string(means.shape(1)) + " features");
  // The nearest centre of each row, in row blocks (each row's answer alone: any thread count).
  std::vector<std::size_t> nearest(n, 0);
  constexpr std::size_t block = 256;
  parallel_for_blocks(n, block, threads, [&](std::size_t, const RowBlock& b) {
    const Matrix rows = xt::view(inputs, xt::range(b.first, b.first + b.count), xt::all());
    const Matrix d2 = squared_euclidean(rows, means);
    for (std::size_t r = 0; r < b.count; ++r) {
      double best = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < m; ++j)
        if (d2(r, j) < best) {
          best = d2(r, j);
          nearest[b.first + r] = j;
        }
    }
  });
  std::vector<double> sums((m + 1) * (k + 1), 0.0);  // row-major W, summed in row order
  for (std::size_t r = 0; r < n; ++r) {
    double* w = sums.data() + nearest[r] * (k + 1);
    for (std::size_t c = 0; c < k; ++c) w[c] += targets(r, c);
    w[k] += 1.0;
  }
  sum_over_ranks(sums);
  Matrix out = Matrix::from_shape({m + 1, k + 1});
  std::copy(sums.begin(), sums.end(), out.data());
  return out;
}

}  // namespace radial
