#pragma once
// The single-precision screen of the k-means assignment: for each row, the two smallest values
// of ||c_j||^2 - 2 x.c_j over all centres and the lowest index of the smallest, computed with
// the centres packed in panels of 16 so that the dot products, the bias and the running
// minimum stay in registers (no distance matrix is written). Private to kmeans.cpp.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "radial/core/types.hpp"

namespace radial::detail {

// Centres in single precision, 16 per panel: panel q holds centres 16q..16q+15 as d rows of 16
// floats; the padding of the last panel has norm +inf so it never wins.
struct CentrePanels {
  std::size_t count = 0, dim = 0, panels = 0;
  std::vector<float> values;  // panels x d x 16
  std::vector<float> norm2;   // panels x 16
};

void pack_centres(const Matrix& centres, const Vector& norm2, CentrePanels& out);

// Whether screen_rows may run (AVX-512F, or AVX2 and FMA; see radial/exec/cpu.hpp).
bool screen_available();

// Rows of x_minus2 are -2 x in single precision (count x d). Writes, per row, the smallest and
// second-smallest value and the lowest index of the smallest.
void screen_rows(const float* x_minus2, std::size_t count, const CentrePanels& panels,
                 float* best, float* second, std::uint32_t* index);

}  // namespace radial::detail
