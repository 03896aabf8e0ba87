#pragma once
// Centres chosen as a random subset of the training points, or all of them: with `all` every
// training point is a centre, the full RBF network of the lecture notes (paper 001, "Full RBF
// Network": M = N, mu_m = x_m), which interpolates the training targets exactly when the design
// matrix is invertible ("Interpolation": beta = Z^{-1} y).
//
// Shapes are left to the basis (Shape::None): a point has no spread of its own.

#include <cstddef>

#include "radial/centre_learner.hpp"

namespace radial::plugins {

class SubsetCentres final : public CentreLearner {
 public:
  // requires count >= 1 (the parameter table enforces it).
  SubsetCentres(std::size_t count, bool all);

  // Throws InputError when count > rows (and `all` is false). Warns "duplicate-centres" when
  // chosen points coincide (their basis functions are identical, the design matrix singular).
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;

 private:
  std::size_t count_;
  bool all_;
};

}  // namespace radial::plugins
