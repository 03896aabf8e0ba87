#pragma once
// The `cubic` basis on Euclidean distances: phi(r) = r^3.

#include <radial/basis.hpp>

namespace radial::plugins {

class CubicBasis final : public EuclideanBasis {
 public:
  void map(Matrix& r2) const override;
};

}  // namespace radial::plugins
