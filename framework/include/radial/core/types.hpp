#pragma once
// The container types that cross every Radial interface: row-major xtensor, fixed rank.
// No xarray and no lazy expressions in interfaces: a fixed rank and an evaluated, contiguous
// buffer are what BLAS and the vectorised loops need, and what crosses a plugin boundary safely.

#include <cstdint>

#include "radial/core/config.hpp"

namespace radial {

using Vector = xt::xtensor<double, 1>;
using Matrix = xt::xtensor<double, 2>;   // rows are observations / centres
using Tensor3 = xt::xtensor<double, 3>;  // stacks of matrices, e.g. M full covariances
using Labels = xt::xtensor<std::int64_t, 1>;

}  // namespace radial
