#pragma once
// Gaussian log-densities log N(x | c_j, S_j) for a block of rows and all centres at once, from
// the blocked Mahalanobis distances:  -0.5 * (r_j^2 + d log 2 pi + log |S_j|).

#include <memory>

#include "radial/core/centres.hpp"
#include "radial/numerics/distances.hpp"
#include "radial/core/types.hpp"

namespace radial {

class GaussianLogDensity {
 public:
  // Centres must have a shape (spherical, diagonal or full); ShapeError otherwise.
  explicit GaussianLogDensity(const Centres& centres);

  // out (resized to rows x M) = log N(x_n | c_j, S_j); for a row with missing (NaN) cells, the
  // marginal log N(x_o | c_jo, S_joo) of its observed coordinates o.
  void compute(const Matrix& x_block, Matrix& out) const;

  std::size_t count() const { return distances_.count(); }

  // The distances behind the densities (their feature form, for the EM statistics) and the
  // constants c_j, log N = c_j - 0.5 r_j^2.
  const SquaredDistances& distances() const { return distances_; }
  const Vector& constants() const { return constant_; }

 private:
  SquaredDistances distances_;
  Vector constant_;  // -0.5 * (d log 2 pi + log |S_j|)
};

}  // namespace radial
