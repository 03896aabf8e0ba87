#pragma once
// Centres chosen as a random subset of the training points, or all of them: with `all` every
// training point is a centre, the full RBF network of the lecture notes (paper 001, "Full RBF
// Network": M = N, mu_m = x_m), which interpolates the training targets exactly when the design
// matrix is invertible ("Interpolation": beta = Z^{-1} y).
//
// Shapes are left to the basis (Shape::None): a point has no spread of its own.

#include <cstddef>

#include "radial/network/centre_learner.hpp"
#include "radial/core/params.hpp"

namespace radial::plugins {

struct SubsetOptions {
  std::size_t count = 0;   // 0: auto_centre_count of the rows ("auto", "choose")
  bool all = false;        // every training point a centre; count is then ignored
};

inline constexpr char subset_id[] = "subset";  // the plugin id (RADIAL_PLUGIN, messages)

class SubsetCentres final : public CentreLearner {
 public:
  explicit SubsetCentres(SubsetOptions options) : count_(options.count), all_(options.all) {}

  // Throws InputError when count > rows (and `all` is false). Warns "duplicate-centres" when
  // chosen points coincide (their basis functions are identical, the design matrix singular).
  Centres fit(const Dataset& train, const KernelPrior* prior, FitContext& ctx) override;

 private:
  std::size_t count_;
  bool all_;
};

}  // namespace radial::plugins
