// xsimd kernels for elementwise exp and log. xsimd is a private dependency of the framework:
// it never appears in a public header, so plugins do not see the batch width.
#include "radial/numerics/vector_math.hpp"

#include <cmath>

#include <xsimd/xsimd.hpp>

namespace radial {
namespace {

using Batch = xsimd::batch<double>;
constexpr std::size_t width = Batch::size;

}  // namespace

void exp_in_place(double* values, std::size_t count) {
  std::size_t i = 0;
  for (; i + width <= count; i += width) {
    xsimd::exp(Batch::load_unaligned(values + i)).store_unaligned(values + i);
  }
  for (; i < count; ++i) values[i] = std::exp(values[i]);
}

void log_in_place(double* values, std::size_t count) {
  std::size_t i = 0;
  for (; i + width <= count; i += width) {
    xsimd::log(Batch::load_unaligned(values + i)).store_unaligned(values + i);
  }
  for (; i < count; ++i) values[i] = std::log(values[i]);
}

}  // namespace radial
